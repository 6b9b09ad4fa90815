import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leaseSafetyMarginMs } from '../../../src/engine/components.js';
import { DynamoDbLease } from '../../../src/stores/dynamodb/dynamodb-lease.js';

test('lease safety margin: 10 s for the default lease, scaled down so every config-valid timing is accepted', () => {
  assert.equal(leaseSafetyMarginMs(30_000, 10_000), 10_000);
  assert.equal(leaseSafetyMarginMs(3_000, 500), 1_000);
  // Renewal close to the duration (the config only requires renewal < duration): the margin shrinks to fit.
  assert.equal(leaseSafetyMarginMs(15_000, 5_000), 5_000);
  assert.equal(leaseSafetyMarginMs(15_000, 12_000), 1_500);
  for (const [duration, renew] of [
    [1_000, 100],
    [1_000, 999],
    [2_000, 300],
    [15_000, 5_000],
    [20_000, 15_000],
    [30_000, 10_000],
    [60_000, 20_000],
  ]) {
    const safetyMarginMs = leaseSafetyMarginMs(duration, renew);
    // The constructor rejects unsafe timings; before the fix, e.g. 15000/5000 (valid config) threw here.
    assert.doesNotThrow(
      () =>
        new DynamoDbLease({
          tableName: 't',
          leaseName: 'l',
          leaseDurationMs: duration,
          renewIntervalMs: renew,
          safetyMarginMs,
          clientConfig: { region: 'us-east-1' },
        }),
      `${duration}/${renew}`,
    );
  }
});
