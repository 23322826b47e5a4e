import * as t from 'io-ts';
import { ConfigFile, schemaNoteOf, type JsonSchema } from './codecs.js';

/**
 * The JSON Schema of `config.toml`, written from the codecs the loader decodes it with (codecs.ts):
 * each custom codec carries the fragment of what it accepts, `object()` its keys, and io-ts's own
 * arrays, keyofs and primitives are read off their structure. `config.schema.json` at the package
 * root is this value (a test keeps them equal); TOML editors (Taplo, Even Better TOML) pick it up
 * from a `#:schema` comment on a file's first line, as `cosh-hooks init` writes it.
 *
 * The schema helps an editor complete and flag keys; `cosh-hooks validate` stays the judge: a few
 * checks (an RE2 pattern that compiles, a command a process can be given, `fail_closed` against
 * `fail_open`) are the codecs' only.
 */
export const configSchema = (): JsonSchema => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'cosh-hooks config.toml',
  description: 'Hooks of the cosh-hooks engine (docs/configuration.md). Checked by `cosh-hooks validate`.',
  ...schemaOf(ConfigFile),
});

/** `configSchema()` as the text of `config.schema.json`. */
export const configSchemaText = (): string => `${JSON.stringify(configSchema(), null, 2)}\n`;

const schemaOf = (codec: t.Mixed): JsonSchema => {
  const note = schemaNoteOf(codec);
  if (note?.kind === 'schema') return note.schema;
  if (note?.kind === 'renames') return schemaOf(note.codec);
  if (note?.kind === 'object') {
    const properties = Object.fromEntries(
      [...Object.entries(note.required), ...Object.entries(note.optional)].map(([key, field]) => [
        key,
        schemaOf(field),
      ]),
    );
    const required = Object.keys(note.required);
    return {
      type: 'object',
      properties,
      ...(required.length > 0 && { required }),
      ...(note.oneOf !== undefined && { anyOf: note.oneOf.map((key) => ({ required: [key] })) }),
      additionalProperties: !note.closed,
    };
  }
  if (codec instanceof t.ArrayType) return { type: 'array', items: schemaOf(codec.type as t.Mixed) };
  if (codec instanceof t.KeyofType) return { enum: Object.keys(codec.keys as object) };
  if (codec instanceof t.StringType) return { type: 'string' };
  if (codec instanceof t.BooleanType) return { type: 'boolean' };
  if (codec instanceof t.LiteralType) return { const: codec.value as unknown };
  throw new Error(`configSchema: no JSON Schema for the codec "${codec.name}"`);
};
