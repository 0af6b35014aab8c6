/**
 * API keys CLI (make key-issue / key-list / key-revoke). Writes API_KEYS_FILE (default data/api-keys.json);
 * a running API picks the change up within a second, no restart. The plain key is printed once, by `issue`,
 * and stored nowhere: only its SHA-256 is in the file.
 *
 *   node --import tsx scripts/keys.ts issue alice@example.org
 *   node --import tsx scripts/keys.ts list
 *   node --import tsx scripts/keys.ts revoke 3f2a9c1b7d4e
 */
import { loadApiConfig } from '../services/api/config.js';
import { issueKey, readKeyFile, revokeKey } from '../services/api/keys/key-file.js';

const file = loadApiConfig().API_KEYS_FILE;
const [command, arg] = process.argv.slice(2);

function usage(): never {
  console.error('usage: keys.ts issue <owner email> | list | revoke <id>');
  process.exit(2);
}

switch (command) {
  case 'issue': {
    if (!arg) usage();
    const { key, record } = await issueKey(file, arg);
    console.log(`issued key ${record.id} to ${record.owner} (${file})`);
    console.log('');
    console.log(`  ${key}`);
    console.log('');
    console.log('This is the only time the key is shown: give it to its owner now. Send it as: curl -H "x-api-key: <key>" …');
    break;
  }
  case 'list': {
    const keys = (await readKeyFile(file))?.keys ?? [];
    if (!keys.length) console.log(`no keys in ${file}`);
    for (const k of keys) console.log([k.id, k.revokedAt ? `revoked ${k.revokedAt}` : 'active', k.createdAt, k.owner].join('\t'));
    break;
  }
  case 'revoke': {
    if (!arg) usage();
    const revoked = await revokeKey(file, arg);
    if (!revoked) {
      console.error(`no key with id ${arg} in ${file} (make key-list shows the ids)`);
      process.exit(1);
    }
    console.log(`revoked key ${revoked.id} of ${revoked.owner} at ${revoked.revokedAt}`);
    break;
  }
  default:
    usage();
}
