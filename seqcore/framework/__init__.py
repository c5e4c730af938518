"""The framework the core and every plugin stand on: the hook specifications and their
documentation, the declarations plugins return (``contrib``) and the machinery that turns them
into Pyramid configuration (``contributions``, ``routing``, ``requestclass``, ``links``), the
plugin manager, the settings and their documentation, and the core's own plugin
(``core_plugin``, ``core_links``), which declares through the same hooks a third party uses.

It sits in the domain layer: it may import the domain packages, models, storage, db, services and
observability's basics, never a transport. Plugins reach it only through :mod:`seqcore.plugin`.
"""
