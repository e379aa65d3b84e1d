/** The methods autocannon can send (its lib/httpMethods.js): WebDAV's REPORT is not among them. */
export const AUTOCANNON_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'] as const;
export type AutocannonMethod = (typeof AUTOCANNON_METHODS)[number];

/** The method as autocannon's type, or undefined when autocannon cannot send it. */
export function autocannonMethod(name: string): AutocannonMethod | undefined {
  return AUTOCANNON_METHODS.find((candidate) => candidate === name);
}
