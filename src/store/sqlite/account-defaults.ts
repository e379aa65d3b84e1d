/*
 * Settings of a new account that NewAccount does not carry. The PostgreSQL store uses the same
 * values; the shared store suite checks them.
 */

/** The interface language until the user picks one. */
export const DEFAULT_LANGUAGE = 'en';

/** Weeks start on Monday (1), as in ISO 8601 and most of the world; 0 would be Sunday. */
export const DEFAULT_WEEK_START = 1;
