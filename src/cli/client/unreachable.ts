/**
 * When no answer came from the service: fetch says only "fetch failed", its cause why (refused,
 * no such host, a certificate not trusted). The client names the address it tried, and for a
 * certificate it does not trust (the service's self-signed one, say) what to do about it.
 */

/** The service at `url` gave no answer; `reason` is the system's or TLS's code (ECONNREFUSED, …). */
export class ServiceUnreachable extends Error {
  override name = 'ServiceUnreachable';

  constructor(
    readonly url: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`the service at ${url} could not be reached (${reason})`, options);
  }

  /** The certificate the service presented is not one Node trusts. */
  get untrustedCertificate(): boolean {
    return UNTRUSTED_CERTIFICATE.has(this.reason);
  }
}

/** The TLS codes of a certificate Node does not trust (self-signed, or signed by an unknown authority). */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** What to do about a certificate Node does not trust, in one line. */
export const TRUST_HINT =
  "if it is the service's self-signed certificate, trust it: export NODE_EXTRA_CA_CERTS=data/tls-cert.pem " +
  "(that file in the service's data folder), then run this again";

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The ServiceUnreachable that `error` stands for, when it is fetch's failure to get any answer. */
export function unreachableOf(error: unknown, url: string): ServiceUnreachable | undefined {
  if (error instanceof ServiceUnreachable) return error;
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return undefined;
  const cause: unknown = error.cause;
  const reason = codeOf(cause) ?? (cause instanceof Error ? cause.message : 'no answer');
  return new ServiceUnreachable(url, reason, { cause: error });
}

/** Runs `work`; fetch's failure to reach `url` comes out as a ServiceUnreachable naming it. */
export async function reaching<T>(url: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw unreachableOf(error, url) ?? error;
  }
}
