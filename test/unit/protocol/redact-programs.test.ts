import { describe, expect, it } from 'vitest';
import { redactText } from '../../../src/protocol/redact/index.js';

/** Password options of common command-line programs (src/protocol/redact/programs.ts). */
describe('redactText: password options of known programs', () => {
  it.each([
    ['mysql, password glued to -p', 'mysql -u root -pSECRET db', 'mysql -u root -p<redacted> db'],
    ['mysql, -p first', 'mysql -pSECRET -u root db', 'mysql -p<redacted> -u root db'],
    [
      'mysql by path, after other options',
      '/usr/bin/mysql -h h -P 3306 -pSECRET',
      '/usr/bin/mysql -h h -P 3306 -p<redacted>',
    ],
    ['mysql, quoted password', `mysql -p'SECRET' db`, `mysql -p'<redacted>' db`],
    ['mysql --password=', 'mysql --password=SECRET', 'mysql --password=<redacted>'],
    ['mysqldump', 'mysqldump -uroot -pSECRET db > d.sql', 'mysqldump -uroot -p<redacted> db > d.sql'],
    ['mariadb', 'mariadb -pSECRET', 'mariadb -p<redacted>'],
    ['mysqladmin', 'mysqladmin -pSECRET status', 'mysqladmin -p<redacted> status'],
    ['sshpass -p SECRET', 'sshpass -p SECRET ssh host', 'sshpass -p <redacted> ssh host'],
    ['sshpass -pSECRET', 'sshpass -pSECRET ssh host', 'sshpass -p<redacted> ssh host'],
    [
      'sshpass in a shell -c string',
      `bash -c "sshpass -p SECRET ssh h"`,
      `bash -c "sshpass -p <redacted> ssh h"`,
    ],
    [
      'sshpass running mysql',
      'sshpass -p A ssh h mysql -pB',
      'sshpass -p <redacted> ssh h mysql -p<redacted>',
    ],
    [
      'after ; and in a pipeline',
      'cd x; mysql -pA | sshpass -pB x',
      'cd x; mysql -p<redacted> | sshpass -p<redacted> x',
    ],
    ['mongo -p', 'mongo -u admin -p SECRET', 'mongo -u admin -p <redacted>'],
    ['mongosh -p', 'mongosh --host h -p SECRET', 'mongosh --host h -p <redacted>'],
    ['redis-cli -a', 'redis-cli -h h -a SECRET ping', 'redis-cli -h h -a <redacted> ping'],
    ['redis-cli --pass', 'redis-cli --pass SECRET', 'redis-cli --pass <redacted>'],
    [
      'ldapsearch -w',
      'ldapsearch -x -D cn=admin -w SECRET -b dc=x',
      'ldapsearch -x -D cn=admin -w <redacted> -b dc=x',
    ],
    ['ldapmodify -wSECRET', 'ldapmodify -wSECRET -f x.ldif', 'ldapmodify -w<redacted> -f x.ldif'],
    [
      'ldappasswd old and new',
      'ldappasswd -a OLD -s NEW -w BIND',
      'ldappasswd -a <redacted> -s <redacted> -w <redacted>',
    ],
    ['smbclient -U user%pass', 'smbclient //h/s -U user%SECRET', 'smbclient //h/s -U user%<redacted>'],
    ['smbclient -Uuser%pass', 'smbclient -Uuser%SECRET //h/s', 'smbclient -Uuser%<redacted> //h/s'],
    ['smbclient --user=', 'smbclient --user=user%SECRET //h/s', 'smbclient --user=user%<redacted> //h/s'],
    ['htpasswd -b', 'htpasswd -b /etc/h user SECRET', 'htpasswd -b /etc/h user <redacted>'],
    ['htpasswd -bc', 'htpasswd -bcB /etc/h user SECRET', 'htpasswd -bcB /etc/h user <redacted>'],
    ['htpasswd -nb', 'htpasswd -nb user SECRET', 'htpasswd -nb user <redacted>'],
    ['htpasswd -b with -C', 'htpasswd -B -C 12 -b f user SECRET', 'htpasswd -B -C 12 -b f user <redacted>'],
    ['curl -u user:pass', 'curl -u user:pass http://x', 'curl -u user:<redacted> http://x'],
    ['psql URL', 'psql postgresql://u:pass@h/db', 'psql postgresql://u:<redacted>@h/db'],
    ['wget --password=', 'wget --password=SECRET http://x', 'wget --password=<redacted> http://x'],
    ['wget --http-password', 'wget --http-password SECRET u', 'wget --http-password <redacted> u'],
    ['--passwd', 'tool --passwd SECRET', 'tool --passwd <redacted>'],
    ['sqlcmd -P', 'sqlcmd -S h -U sa -P SECRET', 'sqlcmd -S h -U sa -P <redacted>'],
    [
      'ipmitool -P',
      'ipmitool -I lanplus -H h -U admin -P SECRET power status',
      'ipmitool -I lanplus -H h -U admin -P <redacted> power status',
    ],
    ['zip -P', 'zip -P SECRET a.zip f', 'zip -P <redacted> a.zip f'],
    ['unzip -P', 'unzip -P SECRET a.zip', 'unzip -P <redacted> a.zip'],
    ['7z -p', '7z a -pSECRET a.7z f', '7z a -p<redacted> a.7z f'],
    [
      'openssl pass:',
      'openssl enc -aes256 -pass pass:SECRET -in f',
      'openssl enc -aes256 -pass pass:<redacted> -in f',
    ],
    ['openssl -passin', 'openssl rsa -passin pass:SECRET -in k', 'openssl rsa -passin pass:<redacted> -in k'],
    [
      'keytool -storepass',
      'keytool -list -keystore k -storepass SECRET',
      'keytool -list -keystore k -storepass <redacted>',
    ],
    ['docker login -p', 'docker login -u me -p SECRET registry', 'docker login -u me -p <redacted> registry'],
    ['mosquitto_pub -P', 'mosquitto_pub -u me -P SECRET -t x', 'mosquitto_pub -u me -P <redacted> -t x'],
    ['xfreerdp /p:', 'xfreerdp /u:me /p:SECRET /v:h', 'xfreerdp /u:me /p:<redacted> /v:h'],
    ['lftp -u user,pass', 'lftp -u me,SECRET h', 'lftp -u me,<redacted> h'],
    [
      'snmpwalk v3',
      'snmpwalk -v3 -l authPriv -u me -A AUTH -X PRIV h',
      'snmpwalk -v3 -l authPriv -u me -A <redacted> -X <redacted> h',
    ],
    ['snmpwalk community', 'snmpwalk -v2c -c COMMUNITY h', 'snmpwalk -v2c -c <redacted> h'],
    ['sqlplus user/pass@db', 'sqlplus -s scott/SECRET@orcl', 'sqlplus -s scott/<redacted>@orcl'],
    [
      'nmcli password',
      'nmcli dev wifi connect Home password SECRET',
      'nmcli dev wifi connect Home password <redacted>',
    ],
  ])('%s', (_name, input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
  });

  it.each([
    ['grep -p (a pattern flag, not a password)', 'grep -pfoo file'],
    ['grep -p separate', 'grep -p foo file'],
    ['mysql -p alone prompts: the next word is the database', 'mysql -p db'],
    ['mysql -p at the end', 'mysql -u root -p'],
    ['a program name inside another word', 'mymysql -pSECRET'],
    ['a program name as an argument is no command', 'echo mysql'],
    ['sshpass -p with shell code (no single token)', 'sshpass -p "$(cat /etc/shadow)" ssh h'],
    ['mysql -p with a variable', 'mysql -p$PASS db'],
    ['openssl env: is no password', 'openssl enc -pass env:VAR -in f'],
    ['docker -p outside login', 'docker run -p 8080:80 nginx'],
    ['smbclient -U without %', 'smbclient -U user //h/s'],
    ['htpasswd without -b', 'htpasswd -c /etc/h user'],
    ['ldapsearch -s is a scope', 'ldapsearch -s sub -b dc=x'],
    ['7z -p alone prompts', '7z x -p a.7z'],
    ['the command ends at ;', 'mysql db; grep -pX f'],
    ['sqlplus / as sysdba', 'sqlplus / as sysdba'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toBe(input);
  });
});
