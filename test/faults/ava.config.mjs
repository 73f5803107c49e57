// The ava tests of `npm run test:faults` (after test/faults/run.ts): faults that `npm test` already
// runs through the fault suite's checker, here with a control run of the same steps beside each.
// Not in `npm test` (package.json excludes test/faults/): they double its longest minutes.
export default {
  files: ['test/faults/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '2m',
  concurrency: 1,
  workerThreads: false,
};
