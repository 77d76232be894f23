// HTTPS: the certificate chain and key named by TLS_CERT_FILE and TLS_KEY_FILE, read and checked once at start-up so
// a wrong file is one line for the operator rather than a failure at the first handshake.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { StartupError } from './startup.ts';
import type { Tls } from './types.ts';

async function read(variable: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new StartupError(
      `${variable} ${path} cannot be read (${(error as { code?: string }).code ?? String(error)})`,
    );
  }
}

/** The PEM text of both files, once the first certificate is known to parse, the key too, and the two to match. */
export async function readTls(files: { certFile: string; keyFile: string }): Promise<Tls> {
  const cert = await read('TLS_CERT_FILE', files.certFile);
  const key = await read('TLS_KEY_FILE', files.keyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new StartupError(`TLS_CERT_FILE ${files.certFile} holds no PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new StartupError(`TLS_KEY_FILE ${files.keyFile} holds no PEM private key (or it is encrypted)`);
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new StartupError(`TLS_KEY_FILE ${files.keyFile} is not the key of the certificate in ${files.certFile}`);
  return { cert, key };
}
