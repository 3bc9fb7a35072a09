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
