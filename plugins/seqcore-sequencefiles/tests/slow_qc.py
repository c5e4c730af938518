"""A site plugin whose QC engine takes its time: lets a test kill a worker mid-processing."""

import time

from seqcore.plugin import FastQCCompatibleEngine, IQCEngine, hookimpl


class SlowEngine:
    label = "slow test engine"

    def __init__(self, inner):
        self.inner = inner

    def run(self, path):
        time.sleep(60)
        return self.inner.run(path)


@hookimpl
def configure_app(config):
    # Registered at the top level of the configuration, it overrides the core's engine.
    config.register_service(SlowEngine(FastQCCompatibleEngine()), IQCEngine)
