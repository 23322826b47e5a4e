/*
 * Programs whose short options take a password (docs/protocol.md, "Secrets"), as data: the text
 * rule `password option of a known program` (text.ts) reads a command's words after one of these
 * names and replaces the values named here. Only these programs: `-p` is a password for mysql and
 * a pattern for grep, so an option is a secret only after the program it is one for.
 */

/** One option whose value is (or holds) a password. */
export interface PasswordOption {
  /** The option as written: `-p`, `-w`, `--pass`, `/p:`, or a keyword (nmcli's `password`). */
  readonly option: string;
  /** The value joined to it: `-pSECRET`, `-p'SECRET'`. */
  readonly joined: boolean;
  /** The value as the next word: `-p SECRET`. */
  readonly separate: boolean;
  /** Only what follows the first of this character is secret: `user%pass` (smbclient), `user,pass` (lftp). */
  readonly after?: string;
  /** A value is secret only when it starts with this, which is kept: openssl's `pass:SECRET` (`env:VAR` is not). */
  readonly prefix?: string;
}

/** Where a password is a positional word. */
export type PositionalPassword =
  /** `htpasswd -b [flags] file user PASSWORD`, `htpasswd -nb user PASSWORD`. */
  | 'htpasswd'
  /** `sqlplus user/PASSWORD@db`: the first word that is not an option. */
  | 'sqlplus';

export interface PasswordProgram {
  /** Program names (a path before one is allowed: `/usr/bin/mysql`). */
  readonly programs: readonly string[];
  /** The options only count after this subcommand (`docker login -p`). */
  readonly subcommand?: string;
  readonly options: readonly PasswordOption[];
  readonly positional?: PositionalPassword;
}

const joined = (option: string, extra: Partial<PasswordOption> = {}): PasswordOption => ({
  option,
  joined: true,
  separate: false,
  ...extra,
});
const separate = (option: string, extra: Partial<PasswordOption> = {}): PasswordOption => ({
  option,
  joined: false,
  separate: true,
  ...extra,
});
const either = (option: string, extra: Partial<PasswordOption> = {}): PasswordOption => ({
  option,
  joined: true,
  separate: true,
  ...extra,
});

export const PASSWORD_PROGRAMS: readonly PasswordProgram[] = [
  {
    // `-pSECRET` only: a separate `-p` prompts, and the next word is the database.
    programs: [
      'mysql',
      'mysqldump',
      'mysqladmin',
      'mysqlimport',
      'mysqlshow',
      'mysqlcheck',
      'mysqlpump',
      'mysqlslap',
      'mysqlbinlog',
      'mariadb',
      'mariadb-dump',
      'mariadb-admin',
      'mariadb-import',
      'mariadb-show',
      'mariadb-check',
      'mariadb-slap',
      'mariadb-binlog',
    ],
    options: [joined('-p')],
  },
  { programs: ['sshpass'], options: [either('-p')] },
  {
    programs: [
      'mongo',
      'mongosh',
      'mongodump',
      'mongorestore',
      'mongoexport',
      'mongoimport',
      'mongostat',
      'mongotop',
      'mongofiles',
    ],
    options: [either('-p')],
  },
  { programs: ['redis-cli', 'valkey-cli', 'keydb-cli'], options: [separate('-a'), separate('--pass')] },
  {
    programs: [
      'ldapsearch',
      'ldapmodify',
      'ldapadd',
      'ldapdelete',
      'ldapwhoami',
      'ldapcompare',
      'ldapmodrdn',
      'ldapexop',
    ],
    options: [either('-w')],
  },
  // -a: the old password, -s: the new one (ldapsearch's -s is a scope: not here).
  { programs: ['ldappasswd'], options: [either('-w'), either('-a'), either('-s')] },
  {
    programs: ['smbclient', 'rpcclient', 'smbcacls', 'smbget', 'smbtree', 'smbpasswd', 'net'],
    options: [
      either('-U', { after: '%' }),
      joined('--user=', { after: '%' }),
      separate('--user', { after: '%' }),
    ],
  },
  { programs: ['lftp'], options: [separate('-u', { after: ',' })] },
  { programs: ['htpasswd'], options: [], positional: 'htpasswd' },
  { programs: ['sqlplus'], options: [], positional: 'sqlplus' },
  { programs: ['sqlcmd', 'bcp', 'osql'], options: [either('-P')] },
  { programs: ['ipmitool'], options: [separate('-P')] },
  { programs: ['zip', 'unzip'], options: [separate('-P')] },
  // `-pSECRET` only: a bare `-p` prompts.
  { programs: ['7z', '7za', '7zr', 'rar', 'unrar'], options: [joined('-p')] },
  {
    programs: ['openssl'],
    options: [
      separate('-pass', { prefix: 'pass:' }),
      separate('-passin', { prefix: 'pass:' }),
      separate('-passout', { prefix: 'pass:' }),
      separate('-k'),
    ],
  },
  {
    programs: ['keytool', 'jarsigner'],
    options: [
      '-storepass',
      '-keypass',
      '-srcstorepass',
      '-deststorepass',
      '-srckeypass',
      '-destkeypass',
      '-new',
    ].map((option) => separate(option)),
  },
  {
    programs: ['docker', 'podman', 'nerdctl', 'buildah', 'skopeo'],
    subcommand: 'login',
    options: [either('-p')],
  },
  { programs: ['az'], subcommand: 'login', options: [separate('-p')] },
  { programs: ['mosquitto_pub', 'mosquitto_sub', 'mosquitto_rr'], options: [separate('-P')] },
  { programs: ['rdesktop'], options: [either('-p')] },
  { programs: ['xfreerdp', 'wlfreerdp', 'sdl-freerdp'], options: [joined('/p:')] },
  {
    programs: [
      'snmpwalk',
      'snmpbulkwalk',
      'snmpget',
      'snmpgetnext',
      'snmpbulkget',
      'snmpset',
      'snmptable',
      'snmptrap',
      'snmpinform',
      'snmpdelta',
      'snmpdf',
      'snmpstatus',
      'snmptest',
      'snmpusm',
      'snmpvacm',
    ],
    // -A and -X: SNMPv3 pass phrases; -c: the v1/v2c community, which is the password.
    options: [either('-A'), either('-X'), either('-c')],
  },
  { programs: ['nmcli'], options: [separate('password')] },
];
