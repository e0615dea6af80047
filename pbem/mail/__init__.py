"""The mail gateway (docs/mail.md): reads pbem files from a mailbox, runs `receive` on them,
and sends the answers by SMTP. Modules: config, addressbook, extract, journal, maildir,
smtp, gateway."""
