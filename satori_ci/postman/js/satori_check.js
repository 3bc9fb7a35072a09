(function () {
  // Satori-CI response checker: the contract's checking semantics (fields-and-oracles.md §2).
  // Mirror of satori_ci/oracles/predicates.py and check.py; findings and messages are byte-identical.
  // One function expression, no require, no modules: it is embedded as text into Postman scripts.
  'use strict';

  var LIMIT = 200;
  // A body whose arrays and objects nest deeper than this is not checked (MAX_DEPTH in check.py).
  var MAX_DEPTH = 256;
  // A surrogate that is not half of a pair: shown as its JSON escape, as Python shows it.
  var LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
  var HAS_LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  // Union of Python's str.isspace() and JavaScript's \s.
  var WS = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
  var URL_START = /^[A-Za-z][A-Za-z0-9+.\-]*:\/\/([^\/?#]*)/;
  var NUMERIC = /^[+-]?[0-9]+(?:\.[0-9]+)?$/;
  var EMAIL = /^[^@]+@[^@]+\.[^@]+$/;

  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  var MON = '(' + MONTHS.join('|') + ')';
  var YMD_DASH = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
  var YMD_SLASH = /^([0-9]{4})\/([0-9]{2})\/([0-9]{2})$/;
  var XX_SLASH = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/;
  var DMY_DASH = /^([0-9]{2})-([0-9]{2})-([0-9]{4})$/;
  var D_MON_Y = new RegExp('^([0-9]{1,2}) ' + MON + ' ([0-9]{4})$');
  var MON_D_Y = new RegExp('^' + MON + ' ([0-9]{1,2}), ([0-9]{4})$');

  var SS = '(?::([0-9]{2})(?:\\.[0-9]+)?)?';
  var ZONE = '(?:Z|[+-]([0-9]{2}):?([0-9]{2}))?';
  var TIME_24 = new RegExp('^([0-9]{1,2}):([0-9]{2})' + SS + ZONE + '$');
  var TIME_12 = new RegExp('^([0-9]{1,2}):([0-9]{2})' + SS + ' ?[aApP][mM]$');
  var DATE_TIME = new RegExp('^([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})' + SS + ZONE + '$');

  var LIST_VALUED = { string_specific_values: true, number_specific_values: true, array_specific_sizes: true };
  var VALUED = {
    string_specific_values: true, string_fixed_length: true, number_min_value: true, number_max_value: true,
    number_specific_values: true, array_min_size: true, array_max_size: true, array_specific_sizes: true
  };
  var TYPE_NAMES = { string: 'a string', boolean: 'a boolean', number: 'a number', array: 'an array' };
  var FIXED = {
    string_is_url: 'is not an absolute URL',
    string_is_numeric: 'is not a decimal number',
    string_is_email: 'is not an email address',
    string_is_date: 'is not a date',
    string_is_time: 'is not a time or date-time',
    boolean_always_true: 'is not true',
    boolean_always_false: 'is not false'
  };

  function has(obj, key) {
    return Object.prototype.hasOwnProperty.call(obj, key);
  }

  function isNumber(v) {
    return typeof v === 'number';
  }

  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  function codePoints(s) {
    return Array.from(s);
  }

  function isUrl(s) {
    var m = URL_START.exec(s);
    if (m === null || WS.test(s)) return false;
    var hostPort = m[1].slice(m[1].lastIndexOf('@') + 1);
    var colon = hostPort.indexOf(':');
    return (colon < 0 ? hostPort : hostPort.slice(0, colon)) !== '';
  }

  function isNumeric(s) {
    return NUMERIC.test(s);
  }

  function isEmail(s) {
    return EMAIL.test(s) && !WS.test(s);
  }

  function daysIn(year, month) {
    if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
    return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  }

  function validDate(year, month, day) {
    var y = Number(year), m = Number(month), d = Number(day);
    return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
  }

  function isDate(s) {
    var m = YMD_DASH.exec(s) || YMD_SLASH.exec(s);
    if (m) return validDate(m[1], m[2], m[3]);
    if ((m = XX_SLASH.exec(s))) return validDate(m[3], m[2], m[1]) || validDate(m[3], m[1], m[2]);
    if ((m = DMY_DASH.exec(s))) return validDate(m[3], m[2], m[1]);
    if ((m = D_MON_Y.exec(s))) return validDate(m[3], MONTHS.indexOf(m[2]) + 1, m[1]);
    if ((m = MON_D_Y.exec(s))) return validDate(m[3], MONTHS.indexOf(m[1]) + 1, m[2]);
    return false;
  }

  function validClock(hour, minute, second, low, high) {
    var h = Number(hour);
    return h >= low && h <= high && Number(minute) <= 59 && (second === undefined || Number(second) <= 59);
  }

  function validZone(hours, minutes) {
    return hours === undefined || minutes === undefined || (Number(hours) <= 23 && Number(minutes) <= 59);
  }

  function isTime(s) {
    var m = TIME_24.exec(s);
    if (m) return validClock(m[1], m[2], m[3], 0, 23) && validZone(m[4], m[5]);
    if ((m = TIME_12.exec(s))) return validClock(m[1], m[2], m[3], 1, 12);
    if ((m = DATE_TIME.exec(s))) {
      return validDate(m[1], m[2], m[3]) && validClock(m[4], m[5], m[6], 0, 23) && validZone(m[7], m[8]);
    }
    return false;
  }

  var STRING_TESTS = {
    string_is_url: isUrl,
    string_is_numeric: isNumeric,
    string_is_email: isEmail,
    string_is_date: isDate,
    string_is_time: isTime
  };

  function family(kind) {
    return kind.split('_')[0];
  }

  function typeOk(kind, v) {
    var f = family(kind);
    if (f === 'string') return typeof v === 'string';
    if (f === 'boolean') return typeof v === 'boolean';
    if (f === 'number') return isNumber(v);
    if (f === 'array') return Array.isArray(v);
    throw new Error('unknown oracle kind: ' + kind);
  }

  function valueOk(kind, value) {
    if (has(LIST_VALUED, kind)) return Array.isArray(value);
    if (has(VALUED, kind)) return isNumber(value);
    return true;
  }

  function oneOfNumbers(v, options) {
    return options.some(function (x) { return isNumber(x) && x === v; });
  }

  function isNullLike(v, nullLike) {
    return typeof v === 'string' && nullLike.indexOf(v) >= 0;
  }

  // First element breaking the order: [its index, index of the number before it or -1 if not a number].
  function orderBreak(v, ascending, nullLike) {
    var previous = -1;
    for (var i = 0; i < v.length; i++) {
      var el = v[i];
      if (el === null || isNullLike(el, nullLike || [])) continue;
      if (!isNumber(el)) return [i, -1];
      if (previous >= 0) {
        var before = v[previous];
        if (!(ascending ? el >= before : el <= before)) return [i, previous];
      }
      previous = i;
    }
    return null;
  }

  function holds(kind, value, v, nullLike) {
    if (!typeOk(kind, v) || !valueOk(kind, value)) return false;
    if (has(STRING_TESTS, kind)) return STRING_TESTS[kind](v);
    switch (kind) {
      case 'string_specific_values':
        return value.some(function (x) { return typeof x === 'string' && x === v; });
      case 'string_fixed_length': return codePoints(v).length === value;
      case 'boolean_always_true': return v === true;
      case 'boolean_always_false': return v === false;
      case 'number_min_value': return v >= value;
      case 'number_max_value': return v <= value;
      case 'number_specific_values': return oneOfNumbers(v, value);
      case 'array_min_size': return v.length >= value;
      case 'array_max_size': return v.length <= value;
      case 'array_specific_sizes': return oneOfNumbers(v.length, value);
      case 'array_number_asc_order': return orderBreak(v, true, nullLike) === null;
      case 'array_number_desc_order': return orderBreak(v, false, nullLike) === null;
      default: throw new Error('unknown oracle kind: ' + kind);
    }
  }

  var ESCAPES = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

  function escapeSurrogates(s) {
    return s.replace(LONE_SURROGATE, function (c) { return '\\u' + c.charCodeAt(0).toString(16); });
  }

  function quote(s) {
    return escapeSurrogates('"' + s.replace(/[\x00-\x1f"\\]/g, function (c) {
      return has(ESCAPES, c) ? ESCAPES[c] : '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4);
    }) + '"');
  }

  function scalarJson(v) {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') return String(v);
    if (typeof v === 'string') return quote(v);
    return quote(String(v));
  }

  // The JSON text of v in pieces, without recursion (a body may nest thousands deep); stops once the pieces
  // hold more than most UTF-16 code units.
  function jsonPieces(v, most) {
    var out = [], size = 0;
    var stack = [{ items: [v], keys: null, i: 0, close: '' }];
    while (stack.length && size <= most) {
      var top = stack[stack.length - 1];
      var n = top.keys === null ? top.items.length : top.keys.length;
      if (top.i >= n) {
        stack.pop();
        out.push(top.close);
        size += top.close.length;
        continue;
      }
      var i = top.i++;
      var piece = i > 0 ? ', ' : '';
      var x;
      if (top.keys === null) {
        x = top.items[i];
      } else {
        piece += quote(top.keys[i]) + ': ';
        x = top.items[top.keys[i]];
      }
      if (Array.isArray(x)) {
        piece += '[';
        stack.push({ items: x, keys: null, i: 0, close: ']' });
      } else if (x !== null && typeof x === 'object') {
        piece += '{';
        stack.push({ items: x, keys: Object.keys(x), i: 0, close: '}' });
      } else {
        piece += scalarJson(x);
      }
      out.push(piece);
      size += piece.length;
    }
    return out;
  }

  // JSON as Python's json.dumps(ensure_ascii=False) writes it (", " and ": "), numbers as String(n), lone
  // surrogates escaped.
  function toJson(v) {
    return jsonPieces(v, Infinity).join('');
  }

  // At most limit code points of the JSON of v; only that much of a large value is written (a code point is
  // at most two code units, so twice as many units always hold enough).
  function truncateJson(v, limit) {
    var max = limit === undefined ? LIMIT : limit;
    var text = jsonPieces(v, 2 * max + 2).join('');
    var cps = codePoints(text);
    return cps.length <= max ? text : cps.slice(0, max - 1).join('') + '\u2026';
  }

  function pointerToken(name) {
    return escapeSurrogates(name.replace(/~/g, '~0').replace(/\//g, '~1'));
  }

  // Whether the arrays and objects of body nest more than limit levels ([] is one level), without recursion.
  function deeperThan(body, limit) {
    var level = body !== null && typeof body === 'object' ? [body] : [];
    for (var depth = 0; depth < limit; depth++) {
      var inner = [];
      for (var n = 0; n < level.length; n++) {
        var node = level[n];
        var children = Array.isArray(node) ? node : Object.keys(node).map(function (k) { return node[k]; });
        for (var c = 0; c < children.length; c++) {
          if (children[c] !== null && typeof children[c] === 'object') inner.push(children[c]);
        }
      }
      if (inner.length === 0) return false;
      level = inner;
    }
    return level.length > 0;
  }

  // Every [pointer, value] the segments reach, in document order; wrong-type containers count as absent.
  // Followed one segment at a time over everything reached so far, in order, without recursion.
  function locate(body, segments) {
    var found = [['', body]];
    for (var s = 0; s < segments.length && found.length; s++) {
      var seg = segments[s];
      var next = [];
      if (!has(seg, 'prop') && !seg.items && !seg.map) {
        throw new Error('unknown path segment: ' + JSON.stringify(seg));
      }
      var token = has(seg, 'prop') ? pointerToken(seg.prop) : null;
      for (var f = 0; f < found.length; f++) {
        var pointer = found[f][0], node = found[f][1];
        if (token !== null) {
          if (isObject(node) && has(node, seg.prop)) next.push([pointer + '/' + token, node[seg.prop]]);
        } else if (seg.items) {
          if (Array.isArray(node)) {
            for (var i = 0; i < node.length; i++) next.push([pointer + '/' + i, node[i]]);
          }
        } else if (isObject(node)) {
          var keys = Object.keys(node);
          for (var k = 0; k < keys.length; k++) next.push([pointer + '/' + pointerToken(keys[k]), node[keys[k]]]);
        }
      }
      found = next;
    }
    return found;
  }

  function fieldName(segments) {
    var base = 'body', markers = '';
    segments.forEach(function (seg) {
      if (has(seg, 'prop')) {
        base = seg.prop;
        markers = '';
      } else {
        markers += seg.map ? '{}' : '[]';
      }
    });
    return escapeSurrogates(base + markers);
  }

  function orderComplaint(v, ascending, nullLike) {
    var found = orderBreak(v, ascending, nullLike) || [0, 0];
    var i = found[0], before = found[1];
    if (before < 0) return 'is not an array of numbers: ' + truncateJson(v[i]) + ' at index ' + i;
    return 'is not in ' + (ascending ? 'ascending' : 'descending') + ' order: ' + toJson(v[i]) +
      ' at index ' + i + ' follows ' + toJson(v[before]);
  }

  function complaint(kind, value, v, nullLike) {
    if (holds(kind, value, v, nullLike)) return null;
    if (!typeOk(kind, v)) return 'is not ' + TYPE_NAMES[family(kind)];
    if (!valueOk(kind, value)) {
      return 'cannot be checked: the oracle value ' + truncateJson(value) + ' is not ' +
        (has(LIST_VALUED, kind) ? 'a list' : 'a number');
    }
    if (has(FIXED, kind)) return FIXED[kind];
    switch (kind) {
      case 'string_specific_values':
      case 'number_specific_values':
        return 'is not one of ' + truncateJson(value);
      case 'string_fixed_length': return 'has ' + codePoints(v).length + ' characters, not ' + toJson(value);
      case 'number_min_value': return 'is less than ' + toJson(value);
      case 'number_max_value': return 'is greater than ' + toJson(value);
      case 'array_min_size': return 'has ' + v.length + ' elements, fewer than ' + toJson(value);
      case 'array_max_size': return 'has ' + v.length + ' elements, more than ' + toJson(value);
      case 'array_specific_sizes': return 'has ' + v.length + ' elements, not one of ' + truncateJson(value);
      default: return orderComplaint(v, kind === 'array_number_asc_order', nullLike);
    }
  }

  function clip(v) {
    return typeof v === 'string' ? codePoints(v).slice(0, LIMIT).join('') : v;
  }

  // oracles: [{field, segments, oracle, value}]; returns [{index, pointer, value, message}].
  // In one walk of the body: the findings, and the indices of the oracles that met at least one value that is
  // not null (nor null-like): they were exercised.
  function checkAndExercise(oracles, body, nullLike) {
    var nulls = nullLike || [];
    var findings = [];
    var exercised = [];
    oracles.forEach(function (o, index) {
      if (o.enabled === false) return;
      var name = fieldName(o.segments);
      var value = o.value === undefined ? null : o.value;
      var met = false;
      locate(body, o.segments).forEach(function (hit) {
        var v = hit[1];
        if (v === null || v === undefined || isNullLike(v, nulls)) return;
        met = true;
        var why = complaint(o.oracle, value, v, nulls);
        if (why !== null) {
          findings.push({ index: index, pointer: hit[0], value: clip(v), message: name + ' = ' + truncateJson(v) + ' ' + why });
        }
      });
      if (met) exercised.push(index);
    });
    return { findings: findings, exercised: exercised };
  }

  function checkBody(oracles, body, nullLike) {
    return checkAndExercise(oracles, body, nullLike).findings;
  }

  function exercised(oracles, body, nullLike) {
    return checkAndExercise(oracles, body, nullLike).exercised;
  }

  // A value as one percent-encoded path segment: everything but A-Z a-z 0-9 - . _ ~ encoded (Python's quote).
  function encodeSegment(s) {
    return encodeURIComponent(s).replace(/[!'()*]/g, function (c) {
      return '%' + c.charCodeAt(0).toString(16).toUpperCase();
    });
  }

  // The distinct identifiers (non-empty strings, numbers) at the first of the paths that reaches any, encoded
  // as path segments, in document order, at most most.
  function harvest(body, paths, most) {
    for (var p = 0; p < paths.length; p++) {
      var out = [];
      var seen = {};
      var hits = locate(body, paths[p]);
      for (var i = 0; i < hits.length && out.length < most; i++) {
        var v = hits[i][1];
        var text = typeof v === 'string' ? v : (isNumber(v) ? toJson(v) : null);
        if (text === null || text === '') continue;
        var encoded;
        try {
          encoded = encodeSegment(text);
        } catch (e) {
          continue;
        }
        if (has(seen, encoded)) continue;
        seen[encoded] = true;
        out.push(encoded);
      }
      if (out.length) return out;
    }
    return [];
  }

  // -- observations: the twin of summarize in satori_ci/observe/summary.py (same JSON, see its docstring) --

  // counter: ends in five digits or more (numbered in sequence); no oracle kind, see propose.py
  var FORMATS = [['url', isUrl], ['numeric', isNumeric], ['email', isEmail], ['date', isDate], ['time', isTime],
    ['counter', function (s) { return /[0-9]{5}$/.test(s); }]];

  function distinct(keys, maxValues) {
    var seen = Object.create(null);
    var n = 0;
    for (var i = 0; i < keys.length; i++) {
      if (!has(seen, keys[i])) {
        seen[keys[i]] = 1;
        n += 1;
        if (n > maxValues) return null;
      }
    }
    return seen;
  }

  function lowest(xs) {
    var m = xs[0];
    for (var i = 1; i < xs.length; i++) if (xs[i] < m) m = xs[i];
    return m;
  }

  function highest(xs) {
    var m = xs[0];
    for (var i = 1; i < xs.length; i++) if (xs[i] > m) m = xs[i];
    return m;
  }

  function summarizeStrings(values, maxValues, maxLength) {
    var lengths = values.map(function (s) { return codePoints(s).length; });
    var out = { responses: 1, min_length: lowest(lengths), max_length: highest(lengths) };
    FORMATS.forEach(function (f) { out[f[0]] = values.every(f[1]) ? 1 : 0; });
    var keepable = values.every(function (s) {
      return codePoints(s).length <= maxLength && !isEmail(s) && !HAS_LONE_SURROGATE.test(s);
    });
    out.values = keepable ? distinct(values, maxValues) : null;
    return out;
  }

  function summarizeArrays(arrays, nullLike, maxValues) {
    var sizes = arrays.map(function (a) { return a.length; });
    var informative = arrays.some(function (a) {
      var nums = a.filter(isNumber);
      for (var i = 1; i < nums.length; i++) if (nums[i] !== nums[0]) return true;
      return false;
    });
    return {
      responses: 1, min_size: lowest(sizes), max_size: highest(sizes),
      ascending: arrays.every(function (a) { return orderBreak(a, true, nullLike) === null; }) ? 1 : 0,
      descending: arrays.every(function (a) { return orderBreak(a, false, nullLike) === null; }) ? 1 : 0,
      informative: informative ? 1 : 0, sizes: distinct(sizes.map(String), maxValues)
    };
  }

  // What one field's values look like in one body: null when it has none (absent, null or null-like).
  function summarizeField(segments, body, nullLike, maxValues, maxLength) {
    var strings = [], numbers = [], booleans = [], arrays = [], objects = 0;
    locate(body, segments).forEach(function (hit) {
      var v = hit[1];
      if (v === null || v === undefined || isNullLike(v, nullLike)) return;
      if (typeof v === 'string') strings.push(v);
      else if (typeof v === 'boolean') booleans.push(v);
      else if (isNumber(v) && isFinite(v)) numbers.push(v);
      else if (Array.isArray(v)) arrays.push(v);
      else objects += 1;  // an object, or a number past the double range (1e400): no JSON summary holds it
    });
    var total = strings.length + numbers.length + booleans.length + arrays.length + objects;
    if (total === 0) return null;
    var out = { responses: 1, values: total };
    if (strings.length) out.string = summarizeStrings(strings, maxValues, maxLength);
    if (numbers.length) {
      out.number = { responses: 1, min: lowest(numbers), max: highest(numbers),
        values: distinct(numbers.map(String), maxValues) };
    }
    if (booleans.length) {
      out.boolean = { responses: 1, true: booleans.indexOf(true) >= 0 ? 1 : 0,
        false: booleans.indexOf(false) >= 0 ? 1 : 0 };
    }
    if (arrays.length) out.array = summarizeArrays(arrays, nullLike, maxValues);
    if (objects) out.objects = 1;
    return out;
  }

  // fields: [{field, segments}]; returns {field path: summary} for the fields with a value in this body.
  function summarize(fields, body, nullLike, maxValues, maxLength) {
    var out = Object.create(null);
    fields.forEach(function (f) {
      var found = summarizeField(f.segments, body, nullLike || [], maxValues, maxLength);
      if (found !== null) out[f.field] = found;
    });
    return out;
  }

  return {
    checkBody: checkBody,
    checkAndExercise: checkAndExercise,
    exercised: exercised,
    summarize: summarize,
    harvest: harvest,
    deeperThan: deeperThan,
    MAX_DEPTH: MAX_DEPTH,
    encodeSegment: encodeSegment,
    holds: holds,
    isUrl: isUrl,
    isNumeric: isNumeric,
    isEmail: isEmail,
    isDate: isDate,
    isTime: isTime,
    toJson: toJson,
    truncateJson: truncateJson,
    fieldName: fieldName
  };
})()
