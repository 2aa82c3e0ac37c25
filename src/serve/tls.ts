import { readFile } from 'node:fs/promises'
import { createError } from '../errors/index.js'

/** A certificate and its private key, PEM-encoded. */
export interface TlsMaterial {
  cert: string
  key: string
  selfSigned: boolean
}

/**
 * The user's certificate and key files, or a self-signed certificate for localhost made at
 * start-up (valid one year, EC P-256) when neither is given.
 */
export async function loadTlsMaterial(
  certFile: string | null | undefined,
  keyFile: string | null | undefined,
): Promise<TlsMaterial> {
  if ((certFile ?? null) === null && (keyFile ?? null) === null) {
    // Loaded only when needed: most runtimes never generate a certificate. An EC key is made in
    // milliseconds, where RSA 2048 takes a noticeable part of a second.
    const { default: selfsigned } = await import('selfsigned')
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    })
    return { cert: pems.cert, key: pems.private, selfSigned: true }
  }
  if (certFile === null || certFile === undefined || keyFile === null || keyFile === undefined) {
    throw createError('ERR_SERVE_TLS', ['--tls-cert and --tls-key must be given together'])
  }
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')])
    return { cert, key, selfSigned: false }
  } catch (err) {
    throw createError('ERR_SERVE_TLS', [(err as Error).message], { cause: err })
  }
}
