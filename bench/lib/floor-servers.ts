// Entry of the floor servers, each in its own process: `uws PORT` (uWebSockets.js hello world),
// `grpc TARGET` (grpc-js echo) or `smtp PORT` (smtp-server + mailparser: every mail parsed, nothing
// stored). Prints "ready" once listening; stops on SIGTERM.
import { createRequire } from 'node:module';
import { startGrpcEchoServer } from './grpc-echo.js';

const [kind, where] = process.argv.slice(2);
if (kind === 'uws') {
  const uWS = createRequire(import.meta.url)('uWebSockets.js') as typeof import('uWebSockets.js');
  uWS.App()
    .any('/*', (res) => {
      res.end('Hello World!');
    })
    .listen('127.0.0.1', Number(where), (socket) => {
      if (!socket) process.exit(1);
      console.log('ready');
    });
} else if (kind === 'grpc') {
  await startGrpcEchoServer(where!);
  console.log('ready');
} else if (kind === 'smtp') {
  const { SMTPServer } = await import('smtp-server');
  const { simpleParser } = await import('mailparser');
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], size: 10 * 1024 * 1024, logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(() => callback(), (err: Error) => callback(err));
    },
  });
  server.listen(Number(where), '127.0.0.1', () => console.log('ready'));
} else {
  console.error('usage: floor-servers.ts uws PORT | grpc TARGET | smtp PORT');
  process.exit(2);
}
process.on('SIGTERM', () => process.exit(0));
