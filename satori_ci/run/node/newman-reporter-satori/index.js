// Newman reporter for satori-ci: streams compact JSON lines to the file given by --reporter-satori-export.
//
// Why not the stock JSON reporter: it keeps the whole run summary (every failure with its whole item)
// and serialises it as one string at the end, which fails with "RangeError: Invalid string length" on
// large failing runs. This reporter writes one short line per event as it happens and keeps nothing.
//
// It also bounds every HTTP exchange of the run (see `bound` below) and says so first:
//        {"type": "bounds", max_bytes, deadline_ms, error} (error: why the bounds could not be set, else null).
// Lines: {"type": "request", item, iteration, status, location, error} for every request sent
//        (location: the Location header of the response; error: {code, message, status});
//        {"type": "result", ...} the test script's own lines (console.log with the satori-ci prefix);
//        {"type": "assertion", item, iteration, name, skipped, error, team} every pm.test (error: its message or
//        null; team: false for the tests of satori-ci's own scripts, true for the collection's others);
//        {"type": "exception", item, iteration, message, team, listen} a script that threw (listen: test or
//        prerequest);
//        {"type": "done", error} once, last.
'use strict';
var fs = require('fs');
var path = require('path');

var PREFIX = '[satori-ci] ';
// satori-ci's own scripts start with this line (satori_ci/postman/script.py); every other script is the team's.
var OWN_SCRIPT = '// satori-ci: ';
var TOO_LARGE = 'ERESPONSETOOLARGE';
var SIZE_MESSAGE = 'Maximum response size reached';

// Newman has no option for a response size limit, and its request timeout (--timeout-request) bounds the
// connection and each wait between two reads, not a whole exchange. postman-runtime sends every request
// through its own copy of postman-request, whose Request takes `maxResponseSize` (counted on the decoded
// body, the request aborted past it) and `followRedirect`. This wraps that Request's init, once per
// process, so that every request of the run (scripts' pm.sendRequest too):
//   - is never redirected (the response of a 3XX is the answer; Newman's --ignore-redirects does the same for
//     the collection's requests, this holds whatever a request's protocolProfileBehavior says);
//   - stops reading past `maxBytes`: the error gets the code ERESPONSETOOLARGE and the response's status;
//   - fails with ETIMEDOUT when the whole exchange (connect, headers, body) takes longer than `deadlineMs`.
function bound(maxBytes, deadlineMs) {
  var main = require.main && require.main.filename;
  if (!main) throw new Error('newman is not the main module');
  var runtime = require.resolve('postman-runtime', { paths: [path.dirname(fs.realpathSync(main))] });
  var Request = require(require.resolve('postman-request', { paths: [path.dirname(runtime)] })).Request;
  if (!Request || typeof Request.prototype.init !== 'function') throw new Error('postman-request has no Request.init');
  if (Request.prototype.init.satoriBounds) return;
  var init = Request.prototype.init;
  Request.prototype.init = function (options) {
    var self = this;
    if (options && typeof options === 'object') {
      options.followRedirect = false;
      options.followAllRedirects = false;
      options.maxResponseSize = maxBytes;
    }
    var out = init.apply(self, arguments);
    if (self.satoriBounded) return out;
    self.satoriBounded = true;
    self.maxResponseSize = maxBytes;
    var status = null;
    var timer = setTimeout(function () {
      timer = null;
      if (self._aborted || self._callbackCalled) return;
      var e = new Error('no complete response within ' + deadlineMs + ' ms');
      e.code = 'ETIMEDOUT';
      self.abort();
      self.emit('error', e);
    }, deadlineMs);
    if (typeof timer.unref === 'function') timer.unref();
    function clear() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    }
    self.on('response', function (response) {
      status = response && typeof response.statusCode === 'number' ? response.statusCode : null;
    });
    self.prependListener('error', function (e) {
      clear();
      if (e && !e.code && e.message === SIZE_MESSAGE) {
        e.code = TOO_LARGE;
        e.status = status;
      }
    });
    self.once('complete', clear);
    self.once('abort', clear);
    return out;
  };
  Request.prototype.init.satoriBounds = true;
}

function location(response) {
  var headers = response && response.headers;
  var value = headers && typeof headers.get === 'function' ? headers.get('Location') : null;
  return typeof value === 'string' ? value : null;
}

module.exports = function SatoriReporter(emitter, options) {
  var file = options && options.export;
  if (!file) throw new Error('the satori reporter needs --reporter-satori-export PATH');
  var fd = fs.openSync(file, 'w');
  var open = true;

  function write(text) {
    if (open) fs.writeSync(fd, text + '\n');
  }

  var maxBytes = Number(options.maxResponseBytes);
  var deadlineMs = Number(options.deadlineMs);
  var problem = null;
  try {
    if (!(maxBytes > 0 && deadlineMs > 0)) throw new Error('--reporter-satori-max-response-bytes and ' +
      '--reporter-satori-deadline-ms are needed');
    bound(maxBytes, deadlineMs);
  } catch (e) {
    problem = String((e && e.message) || e);
  }
  write(JSON.stringify({ type: 'bounds', max_bytes: maxBytes, deadline_ms: deadlineMs, error: problem }));

  // the ids of satori-ci's own scripts, told apart from the team's by their first line before they run: the
  // cursor of a script's assertions and exceptions carries its id
  var own = Object.create(null);
  var listens = Object.create(null);
  emitter.on('beforeScript', function (err, o) {
    var script = o && o.script;
    var exec = script && script.exec;
    var first = Array.isArray(exec) ? exec[0] : exec;
    if (!script || !script.id) return;
    if (typeof first === 'string' && first.indexOf(OWN_SCRIPT) === 0) own[script.id] = true;
    listens[script.id] = o.event && typeof o.event.listen === 'string' ? o.event.listen : null;
  });

  // the item each run of an item (cursor.ref) is of: an exception's event names no item
  var items = Object.create(null);
  emitter.on('beforeItem', function (err, o) {
    if (o && o.cursor && o.cursor.ref && o.item && o.item.id) items[o.cursor.ref] = o.item.id;
  });

  function team(o) {
    var id = o && o.cursor && o.cursor.scriptId;
    return !(id && own[id]);
  }

  function itemId(o) {
    if (o && o.item && o.item.id) return o.item.id;
    return (o && o.cursor && o.cursor.ref && items[o.cursor.ref]) || null;
  }

  function iteration(o) {
    return o && o.cursor && typeof o.cursor.iteration === 'number' ? o.cursor.iteration : null;
  }

  emitter.on('request', function (err, o) {
    write(JSON.stringify({
      type: 'request',
      item: itemId(o),
      iteration: iteration(o),
      status: o && o.response && typeof o.response.code === 'number' ? o.response.code : null,
      location: location(o && o.response),
      error: err ? {
        code: err.code ? String(err.code) : null,
        message: String(err.message || err),
        status: typeof err.status === 'number' ? err.status : null
      } : null
    }));
  });

  emitter.on('console', function (err, o) {
    var messages = o && o.messages;
    if (!messages || messages.length !== 1 || typeof messages[0] !== 'string') return;
    var text = messages[0];
    if (text.indexOf(PREFIX) !== 0) return;
    var payload = text.slice(PREFIX.length);
    try {
      JSON.parse(payload);
    } catch (e) {
      return;
    }
    write('{"type":"result","data":' + payload + '}');
  });

  emitter.on('assertion', function (err, o) {
    write(JSON.stringify({
      type: 'assertion',
      item: itemId(o),
      iteration: iteration(o),
      name: o && typeof o.assertion === 'string' ? o.assertion : null,
      skipped: Boolean(o && o.skipped),
      error: err ? String(err.message || err) : null,
      team: team(o)
    }));
  });

  emitter.on('exception', function (err, o) {
    var error = (o && o.error) || err;
    write(JSON.stringify({
      type: 'exception',
      item: itemId(o),
      iteration: iteration(o),
      message: String((error && (error.message || error)) || 'script error'),
      team: team(o),
      listen: (o && o.cursor && listens[o.cursor.scriptId]) || null
    }));
  });

  emitter.on('done', function (err) {
    write(JSON.stringify({ type: 'done', error: err ? String(err.message || err) : null }));
    open = false;
    fs.closeSync(fd);
  });
};
