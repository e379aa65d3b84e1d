/** Every answer, success or error, is JSON in UTF-8. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
