"""E-mail notifications, as IRIDA Next sends them: a data export is ready, an analysis or
workflow execution finished (when its submitter asked), a personal access token is about to
expire, an account was added to a project or a group.

The operation that causes a message writes it to the outbox (:mod:`.outbox`) in its own
transaction, so a change rolled back sends nothing; the worker delivers the outbox
(:class:`.delivery.MailWorker`), so a slow or failing mail server never holds up or fails that
operation, and a message that could not be sent is tried again later. Each account may turn
any kind off (:mod:`.preferences`). Messages are written from the text templates in
``templates/`` (:mod:`.messages`). Nothing is written while ``seqcore.mail.host`` is empty.

May import: the models, the database helpers, the framework. Imported by the domain
packages that cause messages and by the worker.
"""
