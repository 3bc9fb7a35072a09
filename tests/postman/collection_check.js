// Reads Postman collections (JSON) from stdin and checks them with the postman-collection SDK.
// stdin: {"collections": [collection, ...], "literals": [js_literal text, ...]}
// stdout: {"collections": [{ok, roundTrip, items: [{id, name, method, url, exec, body, headers}]}], "literals": [value]}
'use strict';
const sdk = require('postman-collection');

function resolve(text, variables) {
  return text.replace(/\{\{([^{}]+)\}\}/g, (m, name) => (variables.has(name) ? variables.get(name) : m));
}

function check(json) {
  const collection = new sdk.Collection(json);
  const variables = new Map(collection.variables.map((v) => [v.key, v.value]));
  const items = [];
  collection.forEachItem((item) => {
    const url = item.request.url;
    const host = resolve(url.getHost(), variables);
    const query = url.getQueryString();
    const path = url.getPath();
    const test = item.events.find((e) => e.listen === 'test');
    items.push({
      id: item.id,
      name: item.name,
      folder: item.parent() && item.parent().name,
      method: item.request.method,
      url: host + path + (query ? '?' + query : ''),
      exec: test ? test.script.exec : null,
      body: item.request.body ? item.request.body.raw : null,
      headers: item.request.headers.all().map((h) => [h.key, h.value]),
    });
  });
  const once = JSON.stringify(collection.toJSON());
  const twice = JSON.stringify(new sdk.Collection(JSON.parse(once)).toJSON());
  return {
    ok: sdk.Collection.isCollection(collection),
    roundTrip: once === twice,
    schema: collection.toJSON().info.schema,
    folders: collection.items.all().map((f) => [f.name, sdk.ItemGroup.isItemGroup(f)]),
    items,
  };
}

const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const out = {
    collections: (input.collections || []).map(check),
    // eslint-disable-next-line no-eval
    literals: (input.literals || []).map((text) => eval('(' + text + ')')),
  };
  process.stdout.write(JSON.stringify(out));
});
