/**
 * The AWS Kinesis SDK for the signal and notification channels, loaded on first use: most captures configure
 * neither a Kinesis signal nor a Kinesis notification channel, and loading the SDK at start-up cost ~100 ms of
 * CPU for nothing (the Kinesis sink loads it itself when configured).
 */
import type { KinesisClient, KinesisClientConfig } from '@aws-sdk/client-kinesis';

export type KinesisSdk = typeof import('@aws-sdk/client-kinesis');

let sdk: Promise<KinesisSdk> | undefined;

export function kinesisSdk(): Promise<KinesisSdk> {
  sdk ??= import('@aws-sdk/client-kinesis');
  return sdk;
}

/** A client over HTTP/1.1 (PutRecord and polling need no HTTP/2, and local stand-ins do not speak it). */
export async function newKinesisClient(config: KinesisClientConfig = {}): Promise<KinesisClient> {
  const [{ KinesisClient }, { NodeHttpHandler }] = await Promise.all([
    kinesisSdk(),
    import('@smithy/node-http-handler'),
  ]);
  return new KinesisClient({ requestHandler: new NodeHttpHandler(), ...config });
}
