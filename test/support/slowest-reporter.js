// A jest reporter that ends the run with its slowest suites: CI's time limit is the whole run's, and its
// log's tail is what is kept, so the tail says where the minutes went.
class SlowestReporter {
  constructor(_globalConfig, options = {}) {
    this.count = options.count ?? 25;
    this.suites = [];
  }

  onTestResult(test, result) {
    const ms = result.perfStats.end - result.perfStats.start;
    this.suites.push({ path: require('node:path').relative(test.context.config.rootDir, test.path), ms });
  }

  onRunComplete() {
    if (this.suites.length === 0) return;
    const total = this.suites.reduce((sum, s) => sum + s.ms, 0);
    const slowest = [...this.suites].sort((a, b) => b.ms - a.ms).slice(0, this.count);
    const lines = slowest.map((s) => `${(s.ms / 1000).toFixed(1).padStart(8)} s  ${s.path}`);
    process.stderr.write(`\nSlowest suites (${this.suites.length} suites, ${(total / 60_000).toFixed(1)} min in all):\n${lines.join('\n')}\n`);
  }
}
module.exports = SlowestReporter;
