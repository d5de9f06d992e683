// Refuse, with one line, to run on a Node.js older than the one this project is built for.
// (better-sqlite3 is compiled for Node 24's ABI; on Node 20 it crashes the process with a bare
// "Segmentation fault".) Run first by `npm start`, `npm run dev`, `npm run demo`, `npm test` and
// every `npm run bench*`.
// `bash scripts/setup <command>` finds or installs Node 24 and puts it first on PATH.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `refusing to start: this service needs Node.js 24; this is ${process.version} (${process.execPath}). ` +
      'Run the command through `bash scripts/setup <command>` (e.g. `bash scripts/setup npm start`), which brings Node 24, or put Node 24 first on PATH.\n',
  );
  process.exit(2);
}
