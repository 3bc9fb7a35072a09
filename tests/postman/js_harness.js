// Test harness: evaluates the checker text as Postman would, runs a batch of cases, prints JSON results.
// stdin: {"checker": text, "cases": [{oracles, body, nullLike}], "predicates": [[fn, arg]], "json": [values]}
'use strict';
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const satori = new Function('return ' + input.checker)();
  const out = {
    cases: (input.cases || []).map((c) => satori.checkBody(c.oracles, c.body, c.nullLike)),
    predicates: (input.predicates || []).map(([fn, arg]) => satori[fn](arg)),
    json: (input.json || []).map((v) => [satori.toJson(v), satori.truncateJson(v, 20)]),
  };
  process.stdout.write(JSON.stringify(out));
});
