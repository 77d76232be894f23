// Query parameters by name (src/store/placeholders.ts): every query file names its parameters and its client's values,
// and what is sent to PostgreSQL is the same statement with positions.
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientValues, positional, replacePlaceholders } from '../src/store/placeholders.ts';
import { inlined } from '../src/store/queries.ts';

const it = suite('named parameters');

it('a name is a position, the same name the same one, in the order names first appear', () => {
  const { text, names } = positional('select :b::int, :a, :b where x = any(:list::uuid[])');
  assert.is(text, 'select $1::int, $2, $1 where x = any($3::uuid[])');
  assert.equal(names, ['b', 'a', 'list']);
});

it('literals, quoted names, comments, dollar quotes, casts and slices are not parameters', () => {
  const sql = [
    "select 'a :x', E'it\\'s :y', \"col:z\", $$ :w $$, $t$ :v $t$, a[1:n], b::text -- :c",
    '/* :d */ , :real',
  ].join('\n');
  const { text, names } = positional(sql);
  assert.equal(names, ['real']);
  assert.is(text, sql.replace(':real', '$1'));
  assert.is(
    replacePlaceholders("select :a || ':b'", (name) => `<${name}>`),
    "select <a> || ':b'",
  );
});

it('every query file names its parameters: no $n, and its client values are parameters it takes', () => {
  for (const file of readdirSync('sql/queries')) {
    const text = readFileSync(`sql/queries/${file}`, 'utf8');
    const code = text.replace(/^\s*--.*$/gm, '');
    assert.not.match(code, /\$\d/, `${file} uses a positional parameter`);
    const { names } = positional(text);
    for (const name of clientValues(text)) assert.ok(names.includes(name), `${file}: client value :${name} unused`);
  }
});

it("a report query's name filter is a client's value", () => {
  for (const file of readdirSync('sql/queries').filter((f) => f.startsWith('report-'))) {
    const text = readFileSync(`sql/queries/${file}`, 'utf8');
    assert.equal(clientValues(text), ['nameFilter'], file);
  }
});

it("written into a statement, a client's value is read from its setting, never written", () => {
  const text = inlined('select :a, :b, :c', { a: "O'Brien", b: 'secret', c: null }, ['b', 'c']);
  assert.not.match(text, /secret/);
  assert.match(text, /current_setting\('readout\.param_b'\)/);
  // A null client value is the null literal: there is nothing of the client's to carry.
  assert.match(text, /, null$/);
  assert.throws(() => inlined('select :missing', {}, []), /no value for :missing/);
});

it.run();
