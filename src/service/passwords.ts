/** argon2id, the library's default; loaded on first use only, as most commands need none of it. */
async function argon2(): Promise<typeof import('@node-rs/argon2')> {
  return import('@node-rs/argon2');
}

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password);
}

/**
 * Whether the password matches the stored hash. With no hash (an account made without a
 * password) nothing matches, after the same work, so timing does not tell the two apart.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  const library = await argon2();
  if (hash === null) {
    await library.hash(password);
    return false;
  }
  try {
    return await library.verify(hash, password);
  } catch {
    return false;
  }
}

/** A hash to verify against when the username is unknown, so that case costs the same. */
let decoyHash: Promise<string> | undefined;
export function decoy(): Promise<string> {
  decoyHash ??= hashPassword('decoy password, never matches a real one');
  return decoyHash;
}
