import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fieldsOf, localPath } from './form.js';
import { loginPage, signedInPage, signupPage } from './pages.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie, signedInAccount } from './session-cookie.js';
import { guardForm, sendPage, type WebAuthDeps } from './page-reply.js';

/** The query field by which the sign-in page says that its visitor has just signed out. */
const SIGNED_OUT = 'signed_out';

/** The same message for an unknown name, a wrong password and a throttled try (ACCOUNTS.md 2). */
const WRONG = 'wrong username or password';

/** `GET|POST /login`, `POST /logout`, and with `--signup` `GET|POST /signup`. */
export function registerSignInRoutes(scope: FastifyInstance, deps: WebAuthDeps): void {
  const { signIn } = deps;
  // Without the web app there is nowhere else to go: the sign-in page then says who is signed in.
  const home = deps.webAppServed ? '/' : '/login';
  async function loginPageAnswer(request: FastifyRequest, reply: FastifyReply) {
    const query = fieldsOf(request.query);
    const account = await signedInAccount(signIn, request);
    const csrf = reply.generateCsrf();
    if (account !== undefined) {
      return sendPage(
        reply,
        200,
        signedInPage({ csrf, username: account.username, home: deps.webAppServed ? home : null }),
      );
    }
    return sendPage(
      reply,
      200,
      loginPage({
        csrf,
        next: localPath(query['next'], home),
        signupOpen: signIn.signupOpen,
        ...(query[SIGNED_OUT] === undefined ? {} : { note: 'You are signed out.' }),
      }),
    );
  }
  scope.get('/login', loginPageAnswer);

  async function logIn(request: FastifyRequest, reply: FastifyReply) {
    const form = fieldsOf(request.body);
    const next = localPath(form['next'], home);
    const username = form['username'] ?? '';
    const result = await signIn.signIn(username, form['password'] ?? '', request.ip);
    if (!result.ok) {
      deps.metrics?.signInFailures.inc({ outcome: result.refused });
      // The operator's signal (ACCOUNTS.md 2): a name failing from many addresses shows as many
      // of these lines. The username and address only, never what was typed as a password.
      if (result.refused === 'throttled')
        deps.log.warn(
          // A username is at most 64 characters; what a form sends in its place may be longer.
          { username: username.slice(0, 64), address: request.ip },
          'sign-in refused unchecked: this address failed too often',
        );
      const view = { csrf: reply.generateCsrf(), next, message: WRONG, username, signupOpen: signIn.signupOpen };
      return sendPage(reply, 401, loginPage(view));
    }
    setSessionCookie(reply, result.sessionId);
    return reply.redirect(next, 303);
  }
  scope.post('/login', { preHandler: guardForm(scope) }, logIn);

  async function logOut(request: FastifyRequest, reply: FastifyReply) {
    await signIn.signOut(sessionIdOf(request));
    clearSessionCookie(reply);
    return reply.redirect(`/login?${SIGNED_OUT}=1`, 303);
  }
  scope.post('/logout', { preHandler: guardForm(scope) }, logOut);

  if (!signIn.signupOpen) return;

  async function signupPageAnswer(request: FastifyRequest, reply: FastifyReply) {
    const next = localPath(fieldsOf(request.query)['next'], home);
    return sendPage(reply, 200, signupPage({ csrf: reply.generateCsrf(), next }));
  }
  scope.get('/signup', signupPageAnswer);

  async function signUp(request: FastifyRequest, reply: FastifyReply) {
    const form = fieldsOf(request.body);
    const next = localPath(form['next'], home);
    const result = await signIn.signUp(form['username'] ?? '', form['password'] ?? '', 'UTC', request.ip);
    if (!result.ok)
      return sendPage(reply, 400, signupPage({ csrf: reply.generateCsrf(), next, message: result.message }));
    setSessionCookie(reply, result.sessionId);
    return reply.redirect(next, 303);
  }
  scope.post('/signup', { preHandler: guardForm(scope) }, signUp);
}
