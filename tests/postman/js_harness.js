// Test harness: evaluates the checker text as Postman would, runs a batch of inputs, prints JSON results.
// stdin: {"checker": text, "cases": [{oracles, body, nullLike}], "strings": [s], "json": [values],
//         "summaries": [{fields, body, nullLike, maxValues, maxLength}]}
// stdout: {"cases": [findings], "strings": ["01001" = isUrl isNumeric isEmail isDate isTime], "json": [[full, cut]],
//          "summaries": [{field: summary}]}
'use strict';
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const satori = new Function('return ' + input.checker)();
  const fns = [satori.isUrl, satori.isNumeric, satori.isEmail, satori.isDate, satori.isTime];
  const out = {
    cases: (input.cases || []).map((c) => satori.checkBody(c.oracles, c.body, c.nullLike)),
    strings: (input.strings || []).map((s) => fns.map((fn) => (fn(s) ? '1' : '0')).join('')),
    json: (input.json || []).map((v) => [satori.toJson(v), satori.truncateJson(v, 20)]),
    summaries: (input.summaries || []).map((c) => satori.summarize(c.fields, c.body, c.nullLike, c.maxValues,
      c.maxLength)),
  };
  process.stdout.write(JSON.stringify(out));
});
