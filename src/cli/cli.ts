import { readFileSync } from 'node:fs'
import type { CommandIo } from './commands/io.js'
import { requireOptionalPackages } from './optional-packages.js'
import { reportFailure } from './report.js'
import { exitCodes, UsageError } from './usage-error.js'
import { withYoungGenerationHeld } from './young-generation.js'

const help = `Understudy: service virtualization.

Usage:
  understudy serve <file-or-dir>... [--port 8080] [--watch]   local mock server from files
  understudy run --mock <file> [--port N] [--admin-port M]     one mock service (any format)
  understudy import <file> [--format F] [-o out.yaml]         convert a file to the DSL
  understudy record --target URL [--port 8080] -o DIR [--keep-latency]   record live traffic as transactions
  understudy platform [--port 8080] [--data-dir ./data]       the control plane (APIs, store, deployer)
  understudy agent --platform URL --harbor H --ship S          an agent running a ship's mock services
  understudy admin create-account --name N --email E         a new account and its owner's API key
  understudy admin migrate --from sqlite:DIR --to postgres://...  copy a platform's store to PostgreSQL
  understudy --version

Run "understudy <command> --help" for the flags of a command.
`

/**
 * Runs one command line; resolves to an exit code, or 'running' for a server that stays up.
 *
 * @example
 * await main(['run', '--mock', 'mock.json', '--port', '0'], { stdout: process.stdout, stderr: process.stderr })
 */
export async function main(argv: string[], io: CommandIo): Promise<number | 'running'> {
  const [command, ...args] = argv
  try {
    switch (command) {
      // Commands load on demand: `run` (one process per mock service) never pays for the
      // importers, about 25 MiB and a third of a second.
      case 'serve': {
        const [{ runServeCommand }, { importFile, supportedExtensions, openApiRequestValidator }] =
          await Promise.all([import('./commands/serve.js'), import('../../importers/index.js')])
        return await withYoungGenerationHeld(() =>
          runServeCommand(args, io, {
            loadFile: (input, ctx) => importFile(input, ctx),
            extensions: supportedExtensions,
            requestValidator: (files) => {
              const built = openApiRequestValidator(
                files.map((file) => ({ bytes: readFileSync(file), fileName: file })),
              )
              return { check: built.validate, operations: built.operations }
            },
          }),
        )
      }
      case 'run': {
        const { runRunCommand } = await import('./commands/run.js')
        return await withYoungGenerationHeld(() => runRunCommand(args, io))
      }
      case 'record': {
        const [{ runRecordCommand }, { importHar }] = await Promise.all([
          import('./commands/record.js'),
          import('../../importers/index.js'),
        ])
        return await runRecordCommand(args, io, (input) => importHar(input))
      }
      case 'import':
        return await (await import('./commands/import.js')).runImportCommand(args, io)
      // The platform and its admin tool need the optional packages (optional-packages.ts).
      case 'platform':
        requireOptionalPackages()
        return await (await import('./commands/platform.js')).runPlatformCommand(args, io)
      case 'admin':
        requireOptionalPackages()
        return await (await import('./commands/admin.js')).runAdminCommand(args, io)
      case 'agent':
        return await (await import('./commands/agent.js')).runAgentCommand(args, io)
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(command === undefined ? help : await helpOf(args[0]))
        return command === undefined ? exitCodes.usage : exitCodes.ok
      case '--version':
      case '-v':
        io.stdout.write(`${version()}\n`)
        return exitCodes.ok
      default:
        throw new UsageError(
          `unknown command "${command}"; expected serve, run, import, record, platform, agent or admin`,
        )
    }
  } catch (err) {
    return reportFailure(err, command === undefined ? 'understudy' : `understudy ${command}`, io)
  }
}

async function helpOf(command: string | undefined): Promise<string> {
  if (command === 'serve') return (await import('./commands/serve.js')).serveHelp
  if (command === 'run') return (await import('./commands/run.js')).runHelp
  if (command === 'platform') {
    requireOptionalPackages()
    return (await import('./commands/platform.js')).platformHelp
  }
  if (command === 'import') return (await import('./commands/import.js')).importHelp
  if (command === 'admin') {
    requireOptionalPackages()
    return (await import('./commands/admin.js')).adminHelp
  }
  if (command === 'record') return (await import('./commands/record.js')).recordHelp
  if (command === 'agent') return (await import('./commands/agent.js')).agentHelp
  return help
}

function version(): string {
  const pkg = JSON.parse(
    readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
  ) as { version: string }
  return pkg.version
}
