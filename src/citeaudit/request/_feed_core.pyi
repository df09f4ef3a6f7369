"""Types of the compiled copy of the stream's per-chunk work (``_feed_core.pyx``): the same
class as its reference, :class:`citeaudit.request._feed.Feed`.
"""

from citeaudit.request import _feed

class Feed(_feed.Feed): ...

def line_open(text: str, opened: bool) -> bool: ...
