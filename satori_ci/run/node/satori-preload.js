// Loaded into Newman's process by satori-ci (`--require` in NODE_OPTIONS) before Newman itself.
//
// Newman reads each file it is given (collection, environment) and decodes it with the encoding `chardet`
// guesses, and chardet runs all of its two dozen recognisers over every byte: on the collection of a large spec
// (GitHub's: 27 MB) that is 8 s before the first request, and 0.1 s on a small one. satori-ci writes those files
// as UTF-8: a buffer that is valid UTF-8 is taken as UTF-8 at once (the guess chardet makes for it too, whose
// decoding is the same for the ASCII it may name instead); anything else is left to chardet. Nothing changes
// where the runtime has no `buffer.isUtf8` (Node.js before 18.14).
'use strict';
var Module = require('module');
var isUtf8 = require('buffer').isUtf8;

if (typeof isUtf8 === 'function') {
  var load = Module._load;
  var wrapped = null;
  Module._load = function (request) {
    var loaded = load.apply(this, arguments);
    if (request !== 'chardet' || !loaded || typeof loaded.detect !== 'function') {
      return loaded;
    }
    if (wrapped === null || wrapped.original !== loaded) {
      var detect = loaded.detect;
      wrapped = Object.assign(Object.create(loaded), {
        original: loaded,
        detect: function (buffer) {
          return isUtf8(buffer) ? 'UTF-8' : detect(buffer);
        },
        satoriUtf8First: true,
      });
    }
    return wrapped;
  };
}

// V8's code cache for the JavaScript Newman runs. Every Newman run compiles the same 1,200 modules and the
// sandbox's 2.4 MB boot code again: about 0.3 s of its 1.4 s start-up. SATORI_CODE_CACHE names one file (satori-ci
// puts it beside the newman it runs, in that node_modules folder, so only who can change Newman can change it)
// that holds what V8 compiled, keyed by the SHA-1 of the Node.js version, the file name and the source: a source
// that changed is compiled anew, a cache V8 rejects (another V8, other flags) too, and a file that cannot be read
// or written is no cache at all. A module that may call `import()` (or says so in a comment) is left to Node.js:
// a script V8 reads back from a cache loses its `import()` on Node.js 20; none of the ones Newman runs calls it.
var vm = require('vm');
var cacheFile = process.env.SATORI_CODE_CACHE;

if (cacheFile && typeof vm.Script.prototype.createCachedData === 'function') {
  (function () {
    var fs = require('fs');
    var path = require('path');
    var crypto = require('crypto');
    var MAGIC = 'satori-ci code cache 1\n';
    var MAX_BYTES = 64 * 1024 * 1024;
    var BOOT_CODE_MIN = 1024 * 1024;
    var DYNAMIC_IMPORT = /\bimport\s*\(/;
    var cached = readPack(cacheFile);
    var fresh = new Map();
    var used = new Set();
    var flavour = process.version + '\0' + process.arch + '\0';  // V8 itself refuses a cache made under other flags

    function readPack(file) {
      var entries = new Map();
      try {
        var data = fs.readFileSync(file);
        var headerEnd = data.indexOf(10, MAGIC.length);
        if (data.length > MAX_BYTES || data.toString('latin1', 0, MAGIC.length) !== MAGIC || headerEnd < 0) {
          return entries;
        }
        var index = JSON.parse(data.toString('utf8', MAGIC.length, headerEnd));
        var offset = headerEnd + 1;
        Object.keys(index).forEach(function (key) {
          var length = index[key];
          if (!Number.isSafeInteger(length) || length < 0 || offset + length > data.length) {
            throw new Error('bad entry');
          }
          entries.set(key, data.subarray(offset, offset + length));
          offset += length;
        });
        return entries;
      } catch (e) {
        return new Map();
      }
    }

    function writePack(file) {
      var keep = new Map();
      var total = 0;
      function add(value, key) {
        if (!keep.has(key) && total + value.length <= MAX_BYTES / 2) {
          keep.set(key, value);
          total += value.length;
        }
      }
      fresh.forEach(function (script, key) { add(script.createCachedData(), key); });
      used.forEach(function (key) { if (cached.has(key)) { add(cached.get(key), key); } });
      cached.forEach(add);  // entries other runs use (another reporter, --insecure), while there is room
      var index = {};
      keep.forEach(function (value, key) { index[key] = value.length; });
      var temporary = file + '.' + process.pid + '.tmp';
      try {
        fs.mkdirSync(path.dirname(file), {recursive: true});
        fs.writeFileSync(temporary, Buffer.concat([Buffer.from(MAGIC + JSON.stringify(index) + '\n', 'utf8')]
          .concat(Array.from(keep.values()))));
        fs.renameSync(temporary, file);
      } catch (e) {
        try { fs.unlinkSync(temporary); } catch (ignored) { /* nothing was written */ }
      }
    }

    function keyOf(source, filename) {
      return crypto.createHash('sha1').update(flavour + filename + '\0').update(source).digest('hex');
    }

    function compile(source, filename, key) {
      var data = cached.get(key);
      var script = new vm.Script(source, {filename: filename, cachedData: data});
      if (data === undefined || script.cachedDataRejected) {
        fresh.set(key, script);  // its cache is made at exit: with the functions the run compiled since
      } else {
        used.add(key);
      }
      return script;
    }

    var compileModule = Module.prototype._compile;
    Module.prototype._compile = function (content, filename) {
      if (typeof content !== 'string' || !/\.c?js$/.test(filename) ||
          filename.split(path.sep).indexOf('node_modules') < 0) {
        return compileModule.apply(this, arguments);
      }
      var module = this;
      var source = Module.wrap(content.charCodeAt(0) === 35 && content.charCodeAt(1) === 33 ?
        '//' + content.slice(2) : content);
      var key = keyOf(source, filename);
      if (!cached.has(key) && DYNAMIC_IMPORT.test(content)) {  // only modules that passed it are in the cache
        return compileModule.apply(this, arguments);
      }
      var script;
      try {
        script = compile(source, filename, key);
      } catch (e) {  // not a CommonJS script (ES module syntax Node.js may load another way): Node.js says
        return compileModule.apply(this, arguments);
      }
      var wrapper = script.runInThisContext({displayErrors: true});
      var require = function (id) { return module.require(id); };
      require.resolve = function (request, options) { return Module._resolveFilename(request, module, false, options); };
      require.resolve.paths = function (request) { return Module._resolveLookupPaths(request, module); };
      require.main = process.mainModule;
      require.extensions = Module._extensions;
      require.cache = Module._cache;
      return wrapper.call(module.exports, module.exports, require, module, filename, path.dirname(filename));
    };

    // the sandbox (uvm) runs its boot code in a new context for every run: the one large script it runs there
    var runInContext = vm.runInContext;
    vm.runInContext = function (code, context, options) {
      var plain = options === undefined || (typeof options === 'object' && options !== null &&
        Object.keys(options).every(function (name) { return name === 'timeout'; }));
      if (typeof code !== 'string' || code.length < BOOT_CODE_MIN || !plain) {
        return runInContext.apply(this, arguments);
      }
      return compile(code, 'evalmachine.<anonymous>', keyOf(code, 'evalmachine.<anonymous>'))
        .runInContext(context, options);
    };

    process.on('exit', function () {
      if (fresh.size > 0) {
        writePack(cacheFile);
      }
    });
  })();
}
