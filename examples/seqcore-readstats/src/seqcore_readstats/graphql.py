"""``readLengthHistogram(sampleId:)``: the histogram last written back to a sample."""

from __future__ import annotations

import json
from typing import Any

import graphene

FIELD = "read length histogram"


class ReadLengthBin(graphene.ObjectType):
    """Reads whose length is at least ``length`` and below the next bin's."""

    length = graphene.Int(required=True)
    count = graphene.Int(required=True)


class ReadStatsQuery(graphene.ObjectType):
    read_length_histogram = graphene.List(
        graphene.NonNull(ReadLengthBin), sample_id=graphene.ID(required=True),
        description="The read-length histogram written back to the sample by the last "
                    "readstats analysis; null when there is none or the sample is not "
                    "readable.")

    @staticmethod
    async def resolve_read_length_histogram(root: Any, info: Any, sample_id: str
                                            ) -> list[ReadLengthBin] | None:
        _, pk = info.context.parse(sample_id, "Sample")
        # The loaders see only the samples the caller may read.
        if await info.context.loaders.sample.load(pk) is None:
            return None
        value = (await info.context.loaders.metadata.load(pk)).get(FIELD)
        if value is None:
            return None
        return [ReadLengthBin(length=length, count=count) for length, count in json.loads(value)]
