#!/bin/bash
# Instructions per create, counted by valgrind's callgrind: repeatable where the bench's request
# rates are not (two runs of one build agree within about 0.3% on a busy machine; see
# tools/bench/analysis.md). One `serve --http` of the built tree in the current folder, on a fresh
# SQLite store, under callgrind; N creates sent one at a time over one keep-alive connection (each
# its own commit); only the load is counted (callgrind_control zeroes before it, dumps after).
#
#   bash tools/bench/count-instructions.sh [N=1000] [none|hook]
#
# hook: the account has a hook wanting every event, answered 204 by a local receiver, and the
# count waits 3 s after the load for the last deliveries. Prints the request thread's (thread 1)
# instructions per create and the other threads' (V8's helpers, libuv's pool, the delivery
# thread) together. Needs valgrind and `npm run build`; takes about a minute per 1,000 creates.
set -euo pipefail
N=${1:-1000}
HOOK=${2:-none}
case $HOOK in none | hook) ;; *) echo "the second argument is none or hook, not $HOOK" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo 'valgrind is not installed (Debian: apt-get install valgrind)' >&2; exit 2; }
[ -f dist/src/main.js ] || { echo 'run npm run build first' >&2; exit 2; }

WORK=$(mktemp -d)
SERVE=18655
RECEIVER=18656
cleanup() { kill "${SERVER:-}" "${RECEIVER_PID:-}" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
up() { for _ in $(seq 600); do curl -s "http://127.0.0.1:$SERVE/healthz" >/dev/null && return 0; sleep 0.2; done; return 1; }

# The store is made by a first start, the account and its token by the admin commands.
node bin/task-service.js serve --http --host 127.0.0.1 --port $SERVE --data-dir "$WORK/data" >"$WORK/first.log" 2>&1 &
SERVER=$!
up
kill $SERVER && wait $SERVER || true
node bin/task-service.js user add counted --timezone UTC --data-dir "$WORK/data" >/dev/null 2>&1
TOKEN=$(node bin/task-service.js token create counted --data-dir "$WORK/data")

node -e "require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.statusCode = 204; s.end(); }); }).listen($RECEIVER, '127.0.0.1')" &
RECEIVER_PID=$!
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$WORK/cg.out" \
  node bin/task-service.js serve --http --host 127.0.0.1 --port $SERVE --data-dir "$WORK/data" --webhook-allow-private \
  >"$WORK/serve.log" 2>&1 &
SERVER=$!
up
if [ "$HOOK" = hook ]; then
  curl -sf -o /dev/null -H "Authorization: OAuth $TOKEN" -H 'content-type: application/json' \
    -d "{\"url\":\"http://127.0.0.1:$RECEIVER/hook\",\"events\":[\"*\"]}" "http://127.0.0.1:$SERVE/v1/webhooks"
fi

callgrind_control -z $SERVER >/dev/null 2>&1
node -e "
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const [n, token, port] = process.argv.slice(1);
let sent = 0;
function next() {
  if (sent === Number(n)) return agent.destroy();
  sent += 1;
  const request = http.request(
    { host: '127.0.0.1', port, path: '/v1/tasks', method: 'POST', agent,
      headers: { 'content-type': 'application/json', authorization: 'OAuth ' + token } },
    (response) => {
      if (response.statusCode !== 200) { console.error('create answered', response.statusCode); process.exit(1); }
      response.resume();
      response.on('end', next);
    });
  request.end(JSON.stringify({ title: 'task ' + sent, notes: 'counted' }));
}
next();
" "$N" "$TOKEN" $SERVE
if [ "$HOOK" = hook ]; then sleep 3; fi
callgrind_control -d $SERVER >/dev/null 2>&1
kill -INT $SERVER && wait $SERVER || true

summary() { grep -m1 '^summary:' "$1" | awk '{print $2}'; }
main=0
others=0
for part in "$WORK"/cg.out.1-*; do
  count=$(summary "$part")
  if [[ $part == *-01 ]]; then main=$count; else others=$((others + count)); fi
done
echo "$HOOK: $N creates; request thread $((main / N)) instructions a create; other threads $((others / N))"
