// The e2e suites' jest environment: when a test fails, it prints the tail of what the platform's processes
// logged (test/support/processes.ts registers them), so a failure in CI says what the platform was doing.
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

const TAIL = 12_000;

// The processes log JSON lines (docs/operations.md "Logs"): shown as readable lines (LOG_FORMAT=pretty's
// format, from the built libs/logging), so the tail holds more of what happened. Other lines as they are.
function readable(text) {
  let prettyLine;
  try {
    ({ prettyLine } = require(path.join(__dirname, '..', '..', 'libs', 'logging', 'dist', 'pretty.js')));
  } catch {
    return text;
  }
  return text.split('\n').map((line) => {
    const m = /^(\[[^\]]+\] )?(\{.*\})$/.exec(line);
    return m ? `${m[1] ?? ''}${prettyLine(m[2]).trimEnd()}` : line;
  }).join('\n');
}

class E2eEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name !== 'test_fn_failure' && event.name !== 'hook_failure') return;
    const report = this.global.__spawnpointProcessLogs;
    if (typeof report !== 'function') return;
    const what = event.test ? event.test.name : event.hook ? event.hook.type : 'hook';
    let text;
    try {
      text = readable(report());
    } catch (err) {
      text = `(the process logs could not be read: ${err})`;
    }
    if (!text) return;
    process.stderr.write(`\n---- platform output before the failure of "${what}" (last ${TAIL} characters per process group) ----\n${text}\n---- end of platform output ----\n`);
  }
}

E2eEnvironment.TAIL = TAIL;
module.exports = E2eEnvironment;
