/**
 * The answers of the OAuth 2 endpoints as zod schemas, beside shapes.ts (the /v1 answers): the
 * token endpoint's (RFC 6749 section 5.1), its errors (section 5.2) and the metadata (RFC 8414).
 * The endpoints build their bodies as these types, and the OpenAPI document is generated from
 * them. The forms the endpoints read are described here too, for the document.
 */
import { z } from 'zod';
import { OAUTH_ERROR_CODES } from '../../domain/oauth.js';

const scope = z.enum(['read', 'write']);
/** An absolute http(s) URL on this server (a pattern, not the `uri` format, which validators treat apart). */
const serverUrl = z.string().regex(/^https?:\/\/[^/]+/);

export const oauthTokenAnswer = z
  .strictObject({
    access_token: z.string().min(1),
    token_type: z.literal('bearer'),
    expires_in: z.int().positive().meta({ description: 'Seconds the access token lives.' }),
    refresh_token: z.string().min(1).meta({ description: 'Makes the next access token (grant_type=refresh_token).' }),
    scope,
  })
  .meta({ description: 'A new access token (RFC 6749 section 5.1); sent with `Cache-Control: no-store`.' });
export type OAuthTokenBody = z.infer<typeof oauthTokenAnswer>;

export const oauthErrorBody = z
  .strictObject({ error: z.enum(OAUTH_ERROR_CODES), error_description: z.string() })
  .meta({ description: "OAuth's own error body (RFC 6749 section 5.2), which OAuth client libraries read." });
export type OAuthErrorBody = z.infer<typeof oauthErrorBody>;

export const oauthMetadata = z
  .strictObject({
    issuer: serverUrl,
    authorization_endpoint: serverUrl,
    token_endpoint: serverUrl,
    revocation_endpoint: serverUrl,
    response_types_supported: z.array(z.enum(['code', 'token'])),
    grant_types_supported: z.array(z.enum(['authorization_code', 'refresh_token', 'implicit'])),
    code_challenge_methods_supported: z.array(z.literal('S256')),
    token_endpoint_auth_methods_supported: z.array(z.enum(['client_secret_basic', 'client_secret_post', 'none'])),
    revocation_endpoint_auth_methods_supported: z.array(z.enum(['client_secret_basic', 'client_secret_post', 'none'])),
    scopes_supported: z.array(scope),
  })
  .meta({ description: 'Authorization server metadata (RFC 8414).' });
export type OAuthMetadataBody = z.infer<typeof oauthMetadata>;

const field = (description: string) => z.string().optional().meta({ description });

/** The token endpoint's form (`application/x-www-form-urlencoded`). */
export const oauthTokenForm = z
  .looseObject({
    grant_type: z
      .enum(['authorization_code', 'refresh_token'])
      .optional()
      .meta({ description: 'Without it, a form with a `code` is an authorization_code request.' }),
    code: field('authorization_code: the code from the redirect (lives 60 seconds, used once).'),
    redirect_uri: field('authorization_code: the same redirect_uri as in the authorization request.'),
    code_verifier: field('authorization_code with PKCE: the verifier of the code_challenge (RFC 7636).'),
    refresh_token: field('refresh_token: the refresh token of an earlier answer.'),
    scope: field('refresh_token: no more than the grant has; without it, what the grant has.'),
    client_id: field('The client; a confidential client may send it with its secret as HTTP Basic instead.'),
    client_secret: field('A confidential client without HTTP Basic.'),
  })
  .meta({ description: "The token request's form fields; a field sent twice counts as not sent." });

/** The revocation endpoint's form (RFC 7009). */
export const oauthRevokeForm = z
  .looseObject({
    token: z.string().meta({ description: 'The access or refresh token to revoke.' }),
    token_type_hint: field('`access_token` or `refresh_token`; a hint only.'),
    client_id: field('The client that holds the token.'),
    client_secret: field('A confidential client without HTTP Basic.'),
  })
  .meta({ description: 'The revocation request (RFC 7009).' });
