import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schemaToJson } from '../../../src/events/connect-schema.js';

describe('schemaToJson', () => {
  it('spells FLOAT32/FLOAT64 as JsonConverter does ("float"/"double"), also inside structs (geometry x/y)', () => {
    assert.equal(schemaToJson({ type: 'float32', optional: true }), '{"type":"float","optional":true}');
    assert.equal(
      schemaToJson({
        type: 'struct',
        optional: false,
        fields: [
          { field: 'x', schema: { type: 'float64', optional: false } },
          { field: 'n', schema: { type: 'int8', optional: false } },
        ],
      }),
      '{"type":"struct","fields":[{"type":"double","optional":false,"field":"x"},{"type":"int8","optional":false,"field":"n"}],"optional":false}',
    );
  });
});
