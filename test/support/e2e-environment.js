// The e2e suites' jest environment: when a test fails, it prints the tail of what the platform's processes
// logged (test/support/processes.ts registers them), so a failure in CI says what the platform was doing.
const { TestEnvironment } = require('jest-environment-node');

const TAIL = 12_000;

class E2eEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name !== 'test_fn_failure' && event.name !== 'hook_failure') return;
    const report = this.global.__spawnpointProcessLogs;
    if (typeof report !== 'function') return;
    const what = event.test ? event.test.name : event.hook ? event.hook.type : 'hook';
    let text;
    try {
      text = report();
    } catch (err) {
      text = `(the process logs could not be read: ${err})`;
    }
    if (!text) return;
    process.stderr.write(`\n---- platform output before the failure of "${what}" (last ${TAIL} characters per process group) ----\n${text}\n---- end of platform output ----\n`);
  }
}

E2eEnvironment.TAIL = TAIL;
module.exports = E2eEnvironment;
