// Newman reporter for satori-ci: streams compact JSON lines to the file given by --reporter-satori-export.
//
// Why not the stock JSON reporter: it keeps the whole run summary (every failure with its whole item)
// and serialises it as one string at the end, which fails with "RangeError: Invalid string length" on
// large failing runs. This reporter writes one short line per event as it happens and keeps nothing.
//
// Lines: {"type": "request", item, iteration, status, error} for every request sent (error: {code, message});
//        {"type": "result", ...} the test script's own lines (console.log with the satori-ci prefix);
//        {"type": "assertion", item, iteration, name, skipped, error} every pm.test (error: its message or null);
//        {"type": "exception", item, iteration, message} a script that threw;
//        {"type": "done", error} once, last.
'use strict';
var fs = require('fs');

var PREFIX = '[satori-ci] ';

module.exports = function SatoriReporter(emitter, options) {
  var path = options && options.export;
  if (!path) throw new Error('the satori reporter needs --reporter-satori-export PATH');
  var fd = fs.openSync(path, 'w');
  var open = true;

  function write(text) {
    if (open) fs.writeSync(fd, text + '\n');
  }

  function itemId(o) {
    return o && o.item && o.item.id ? o.item.id : null;
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
      error: err ? { code: err.code ? String(err.code) : null, message: String(err.message || err) } : null
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
      error: err ? String(err.message || err) : null
    }));
  });

  emitter.on('exception', function (err, o) {
    var error = (o && o.error) || err;
    write(JSON.stringify({
      type: 'exception',
      item: itemId(o),
      iteration: iteration(o),
      message: String((error && (error.message || error)) || 'script error')
    }));
  });

  emitter.on('done', function (err) {
    write(JSON.stringify({ type: 'done', error: err ? String(err.message || err) : null }));
    open = false;
    fs.closeSync(fd);
  });
};
