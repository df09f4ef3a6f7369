# cython: language_level=3
"""Compiled readers of the provider formats: each walks a response's citations on the path
every well-formed response takes, and gives up (returns None) at the first thing the
reference must decide: a field missing or mistyped, a range outside its text, an id it would
look up further, anything a finding reports. The reference (the format module's own loop)
then reads the whole response, so results are identical whichever runs; the properties in
``tests/test_readers.py`` check that.

A citation is given as the tuple of its :class:`~citeaudit.core.Citation` fields, its claim
None: ``_ranges`` makes it a ``Citation`` once it knows the claim (one object, not two).

- :func:`anthropic` mirrors the loop of ``AnthropicFormat.parse`` (and ``_citation``);
- :func:`openai_responses` mirrors the loop of ``OpenAIResponsesFormat.parse`` (and
  ``_openai._annotation``);
- :func:`cohere` mirrors the loop of ``CohereFormat.parse`` (and ``_cohere._citation``);
- :func:`gemini_answer` mirrors ``GeminiFormat.parse`` (and ``_gemini._support``);
- :func:`bedrock` mirrors the loop of ``BedrockFormat.parse`` (and ``_bedrock._citation``);
- :func:`mistral` mirrors the loop of ``MistralFormat.parse`` over a chat completion's
  chunks (and ``_mistral._references``);
- the snapshots: :func:`anthropic_documents`, :func:`cohere_documents`,
  :func:`gemini_chunks`, :func:`bedrock_references`, :func:`mistral_tools` and
  :func:`search_results` (Perplexity) mirror the functions each names.
"""

from cpython.unicode cimport PyUnicode_Tailmatch

from cpython.ref cimport PyObject

from citeaudit.core._records cimport new_record


cdef extern from "Python.h":
    ctypedef struct PyDictObject:
        void* ma_keys
    PyObject* PyList_GET_ITEM(object items, Py_ssize_t at)
    PyObject* PyDict_GetItemWithError(object mapping, object key) except? NULL
    bint PyDict_CheckExact(PyObject* value)
    bint PyUnicode_CheckExact(object value)
    Py_ssize_t PyUnicode_GET_LENGTH(object value)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define citeaudit_prefetch(address) __builtin_prefetch((const void *)(address))
    #else
    #define citeaudit_prefetch(address) ((void)0)
    #endif
    """
    void _prefetch "citeaudit_prefetch"(const void* address) nogil

_COHERE_SKIPPED = frozenset(("THINKING_CONTENT", "PLAN"))
cdef object _LARGEST = 2 ** 62  # an index read as a C integer: within -_LARGEST.._LARGEST
cdef object _SMALLEST = -_LARGEST
cdef Py_ssize_t _KEPT = 32  # the numbers whose names are kept: a request's documents
cdef dict _NAMES = {}  # head: {tail: [head + "0" + tail, .., head + "31" + tail]}


cdef str _numbered(str head, Py_ssize_t number, str tail=u""):
    """``f"{head}{number}{tail}"``: the same string each time for the numbers a request's
    documents and a response's blocks have (an id, a label or a JSON path is made for each
    citation: formatting them cost ~0.1 us each).
    """
    if not 0 <= number < _KEPT:
        return f"{head}{number}{tail}"
    tails = _NAMES.get(head)
    if tails is None:
        if len(_NAMES) >= 256:  # the heads are this module's and paths made by it; bounded
            _NAMES.clear()
        tails = _NAMES[head] = {}
    kept = (<dict>tails).get(tail)
    if kept is None:
        kept = (<dict>tails)[tail] = [f"{head}{n}{tail}" for n in range(_KEPT)]
    return <str>(<list>kept)[number]


def cohere(list citations, dict texts, dict starts, object known):
    """``message.citations`` as cited ranges ``(start, end, citations)`` of the answer, or
    None: the reference decides.
    """
    cdef list cited = [], made
    cdef Py_ssize_t at, place, count, start, end, first, last, size
    cdef object first_item = next(iter(texts), 0)
    cdef dict citation
    for at in range(len(citations)):
        given = citations[at]
        if type(given) is not dict:
            return None
        citation = <dict>given
        kind = citation.get("type")
        if kind is not None and (type(kind) is not str or kind in _COHERE_SKIPPED):
            return None
        index = citation.get("content_index")
        if index is None:
            index = first_item
        if type(index) is not int:
            return None
        text = texts.get(index)
        low = citation.get("start")
        high = citation.get("end")
        if text is None or type(low) is not int or type(high) is not int:
            return None
        size = len(<str>text)
        if not 0 <= low <= high <= size:  # compared as Python integers: no overflow
            return None
        start = low
        end = high
        said = citation.get("text")
        if said is not None and (type(said) is not str or len(<str>said) != end - start
                                 or not PyUnicode_Tailmatch(text, said, start, end, -1)):
            return None
        sources = citation.get("sources")
        if type(sources) is not list:
            return None
        count = len(<list>sources)
        if count == 0:
            return None
        offset = starts[index]
        first = offset + start
        last = offset + end
        span = (first, last)
        made = []
        for place in range(count):
            source = (<list>sources)[place]
            if type(source) is not dict:
                return None
            written = (<dict>source).get("id")
            if type(written) is not str or written not in known:
                return None
            made.append((
                written, None, span, None,
                f"$.message.citations[{at}].sources[{place}]", None, None, None))
        cited.append((first, last if last > first else first + 1, made))
    return cited


def anthropic(list content, dict located, object location_type):
    """The text blocks of a response's ``content`` and their cited ranges
    ``(pieces, cited)``, or None: the reference decides.
    """
    cdef list pieces = [], cited = [], made, given
    cdef Py_ssize_t index, at, offset = 0, low, lead, tail, size, number
    cdef str text
    cdef dict block, citation
    for index in range(len(content)):
        item = content[index]
        if type(item) is not dict:
            return None
        block = <dict>item
        kind = block.get("type")
        if type(kind) is not str:
            return None
        if kind != "text":
            continue  # tool use, thinking, web search results: not answer text
        written = block.get("text")
        if type(written) is not str:
            return None
        text = <str>written
        pieces.append(text)
        cites = block.get("citations")
        if cites is not None and type(cites) is not list:
            return None
        if cites:
            given = <list>cites
            size = len(text)  # a citation cites its block's text, trimmed (str.strip())
            lead = 0
            while lead < size and (<Py_UCS4>text[lead]).isspace():
                lead += 1
            tail = size
            while tail > lead and (<Py_UCS4>text[tail - 1]).isspace():
                tail -= 1
            low = offset + (lead if lead < size else 0)
            span = (low, low + tail - lead)
            made = []
            for at in range(len(given)):
                item = given[at]
                if type(item) is not dict:
                    return None
                citation = <dict>item
                kind = citation.get("type")
                if type(kind) is not str:
                    return None
                path = _numbered(_numbered(u"$.content[", index, u"].citations["), at, u"]")
                if kind == "web_search_result_location":
                    url = citation.get("url")
                    if type(url) is not str or not url:
                        return None
                    made.append((url, None, span, None, path, "", False, None))
                    continue
                fields = located.get(kind)
                if fields is None:
                    return None
                family, unit, names = fields
                written = citation.get(names[0])
                start = citation.get(names[1])
                end = citation.get(names[2])
                if type(written) is not int or type(start) is not int or type(end) is not int \
                        or not _SMALLEST <= written <= _LARGEST:
                    return None
                number = written  # formatted as a C integer: no Python int's conversion
                quoted = citation.get("cited_text")
                if quoted is not None and type(quoted) is not str:
                    return None
                where = new_record(location_type, (
                    unit, start, end, quoted,
                    _numbered(u"document_index " if family == u"document" else
                              f"{family}_index ", number)))
                made.append((_numbered(u"document:" if family == u"document" else
                                       f"{family}:", number),
                              None, span, None, path, None, None, where))
            if made and tail > lead:
                cited.append((low, span[1], made))
        offset += len(text)
    return pieces, cited


def openai_responses(list output, dict urls, object canonical):
    """The ``output_text`` parts of a response's messages and their cited ranges
    ``(pieces, cited)``, or None: the reference decides.
    """
    cdef list pieces = [], cited = [], parts, notes
    cdef Py_ssize_t at, part_at, index, offset = 0, size
    cdef str text
    cdef dict item, part, note
    for at in range(len(output)):
        given = output[at]
        if type(given) is not dict:
            return None
        item = <dict>given
        kind = item.get("type")
        if type(kind) is not str:
            return None
        if kind != "message":
            continue
        if pieces:
            pieces.append("\n\n")  # one message's text from the next
            offset += 2
        content = item.get("content")
        if type(content) is not list:
            return None
        parts = <list>content
        for part_at in range(len(parts)):
            given = parts[part_at]
            if type(given) is not dict:
                return None
            part = <dict>given
            kind = part.get("type")
            if type(kind) is not str or kind == "refusal":
                return None
            if kind != "output_text":
                continue
            written = part.get("text")
            if type(written) is not str:
                return None
            text = <str>written
            size = len(text)
            given = part.get("annotations")
            if type(given) is list:
                notes = <list>given
                for index in range(len(notes)):
                    given = notes[index]
                    if type(given) is not dict:
                        return None
                    note = <dict>given
                    kind = note.get("type")
                    if kind == "url_citation" or kind == "container_file_citation":
                        first = note.get("start_index")
                        last = note.get("end_index")
                    elif kind == "file_citation":
                        first = last = note.get("index")
                    else:
                        return None
                    target = note.get("url" if kind == "url_citation" else "file_id")
                    if type(target) is not str or not target or type(first) is not int or \
                            type(last) is not int or not 0 <= first <= last <= size:
                        return None
                    if kind == "file_citation":  # a point: the character before it
                        low, high = max(0, first - 1), max(1, first)
                        source_id = target
                    else:
                        low, high = first, last
                        source_id = target if kind != "url_citation" else urls.get(target)
                        if source_id is None:  # written otherwise than the source's URL
                            written = canonical(target)
                            source_id = urls.get(written, written)
                    cited.append((offset + low, offset + high, [(
                        source_id, None, (offset + first, offset + last), None,
                        f"$.output[{at}].content[{part_at}].annotations[{index}]", None, None,
                        None)]))
            elif given is not None:
                return None
            pieces.append(text)
            offset += size
    return pieces, cited


cdef tuple _either(dict data, str snake, str camel):
    """``_gemini._get``: a field by its snake_case name or its camelCase one, and the name it
    was under.
    """
    value = data.get(snake)
    if value is not None or snake in data:
        return value, snake
    return data.get(camel), camel


def gemini_answer(dict candidate, object located):
    """A candidate's text and the cited ranges of its grounding supports ``(text, cited)``
    (``GeminiFormat.parse``), or None: the reference decides.
    """
    cdef list texts = [], starts = []
    cdef Py_ssize_t offset = 0
    content = candidate.get("content")
    if type(content) is not dict:
        return None
    parts = (<dict>content).get("parts")
    if type(parts) is not list:
        return None
    for part in <list>parts:
        if type(part) is not dict:
            return None
        text = (<dict>part).get("text")
        if text is not None and type(text) is not str:
            return None
        starts.append(offset)
        texts.append(text)
        if text is not None:
            offset += len(<str>text)
    whole = "".join([text for text in texts if text is not None])
    metadata, metadata_key = _either(candidate, "grounding_metadata", "groundingMetadata")
    if metadata is None:
        return whole, []
    if type(metadata) is not dict:
        return None
    supports, supports_key = _either(<dict>metadata, "grounding_supports", "groundingSupports")
    if supports is None:
        return whole, []
    if type(supports) is not list:
        return None
    cited = _gemini_supports(supports, texts, starts, {},
                             f"$.candidates[0].{metadata_key}.{supports_key}", located)
    return None if cited is None else (whole, cited)


cdef object _gemini_supports(list supports, list texts, list starts, dict encoded, str base,
                             object located):
    """A candidate's grounding supports as cited ranges, or None: the reference decides."""
    cdef list cited = [], made, indices
    cdef Py_ssize_t at, place, count, size
    cdef dict support, segment
    for at in range(len(supports)):
        given = supports[at]
        if type(given) is not dict:
            return None
        support = <dict>given
        camel = "groundingChunkIndices" in support
        found = support.get("segment")
        given = support.get("groundingChunkIndices" if camel else "grounding_chunk_indices")
        if type(found) is not dict or type(given) is not list:
            return None
        segment = <dict>found
        indices = <list>given
        for place in range(len(indices)):
            if type(indices[place]) is not int:
                return None
        start = segment.get("startIndex" if camel else "start_index")
        end = segment.get("endIndex" if camel else "end_index")
        part = segment.get("partIndex" if camel else "part_index")
        if start is None:
            start = 0
        if part is None:
            part = 0
        if type(start) is not int or type(end) is not int or type(part) is not int or \
                not 0 <= part < len(texts) or type(texts[part]) is not str:
            return None
        text = texts[part]
        if part not in encoded:
            raw = text.encode("utf-8")
            encoded[part] = None if len(raw) == len(text) else raw
        raw = encoded[part]
        size = len(text) if raw is None else len(raw)
        if not 0 <= start <= end <= size:
            return None
        if raw is None:  # ASCII: a byte is a character
            low, covered = start, text[start:end]
        else:
            try:
                low = len(raw[:start].decode("utf-8"))
                covered = raw[start:end].decode("utf-8")
            except UnicodeDecodeError:
                return None
        said = segment.get("text")
        if said is not None and (type(said) is not str or said != covered):
            return None
        first = starts[part] + low
        last = first + len(covered)
        span = (first, last)
        made = []
        for place in range(len(indices)):
            index = indices[place]
            made.append((
                f"chunk:{index}", None, span, None,
                f"{base}[{at}].{'groundingChunkIndices' if camel else 'grounding_chunk_indices'}"
                f"[{place}]", None, None, located(index)))
        cited.append((first, last if last > first else first + 1, made))
    return cited


cdef object _bedrock_where(dict reference):
    """``_bedrock._where``: a reference's location as one string (the URI, URL or id it gives),
    or None.
    """
    location = reference.get("location")
    if not isinstance(location, dict):
        return None
    for value in location.values():
        if isinstance(value, dict):
            for key in ("uri", "url", "id"):
                found = value.get(key)
                if isinstance(found, str) and found:
                    return str(found)
    return None


cdef object _bedrock_id(dict reference, str chunk_key):
    """``_bedrock._source_id`` where the reference has a chunk id or a location, else None
    (a name drawn from its text: the reference's).
    """
    metadata = reference.get("metadata")
    if type(metadata) is dict:
        chunk = (<dict>metadata).get(chunk_key)
        if type(chunk) is str and chunk:
            return chunk
        if chunk is not None and type(chunk) is not str:
            return None  # of another kind (or a subclass of str): the reference's
    elif isinstance(metadata, dict):
        return None
    return _bedrock_where(reference)


def bedrock(list citations, str text, str chunk_key):
    """A RetrieveAndGenerate response's citations as cited ranges, or None: the reference
    decides.
    """
    cdef list cited = [], made, references
    cdef Py_ssize_t at, place, size = len(text)
    cdef dict citation, part
    for at in range(len(citations)):
        given = citations[at]
        if type(given) is not dict:
            return None
        citation = <dict>given
        given = citation.get("generatedResponsePart")
        given = (<dict>given).get("textResponsePart") if type(given) is dict else None
        if type(given) is not dict:
            return None
        part = <dict>given
        span = part.get("span")
        if type(span) is not dict:
            return None
        start = (<dict>span).get("start")
        end = (<dict>span).get("end")
        if type(start) is not int or type(end) is not int or not 0 <= start <= end < size:
            return None
        said = part.get("text")
        if said is not None and (type(said) is not str or len(<str>said) != end + 1 - start or
                                 not PyUnicode_Tailmatch(text, said, start, end + 1, -1)):
            return None
        given = citation.get("retrievedReferences")
        if type(given) is not list:
            if given is None:
                continue  # cites nothing
            return None
        references = <list>given
        covered = (start, end + 1)
        made = []
        for place in range(len(references)):
            reference = references[place]
            if type(reference) is not dict:
                return None
            chunk = _bedrock_id(<dict>reference, chunk_key)
            if chunk is None:
                return None
            made.append((
                chunk, None, covered, None, f"$.citations[{at}].retrievedReferences[{place}]",
                None, None, None))
        if made:
            cited.append((start, end + 1, made))
    return cited


def mistral(list content):
    """A chat completion message's text and reference chunks ``(pieces, cited)``, or None:
    the reference decides.
    """
    cdef list pieces = [], cited = [], made, ids
    cdef Py_ssize_t at, place, offset = 0
    cdef dict chunk
    last = None
    for at in range(len(content)):
        given = content[at]
        if type(given) is not dict:
            return None
        chunk = <dict>given
        kind = chunk.get("type")
        if type(kind) is not str:
            return None
        text = chunk.get("text")
        if kind == "text" or kind == "reference":
            if type(text) is not str and (text is not None or kind == "text"):
                return None
            if text:
                pieces.append(text)
                last = (offset, offset + len(text))
                offset += len(text)
        if kind == "text":
            continue
        if kind == "reference":
            given = chunk.get("reference_ids")
            if type(given) is not list:
                return None
            ids = <list>given
            made = []
            for place in range(len(ids)):
                written = ids[place]
                if type(written) is str:
                    name = written
                elif type(written) is int:
                    name = _numbered(u"", written) if 0 <= written < _KEPT else str(written)
                else:
                    return None
                made.append((name, None, last, None, _numbered(_numbered(
                    u"$.choices[0].message.content[", at, u"].reference_ids["), place, u"]"),
                             None, None, None))
        elif kind == "tool_reference":
            url = chunk.get("url")
            if type(url) is not str:
                return None
            made = [(url, None, last, None,
                      _numbered(u"$.choices[0].message.content[", at, u"]"), None, None, None)]
        else:
            continue
        if last is None:
            return None
        if made:
            cited.append((*last, made))
    return pieces, cited


# The snapshots: the sources a response's request (or the response itself) carries.

cdef object _document(dict block, dict source, object origin, object data, object title,
                      Py_ssize_t index, object source_type, object read_only):
    """``_anthropic._document`` for any document but a ``content`` one."""
    cdef dict metadata = {}
    text = ""
    url = source.get("url")
    url = url if origin == "url" and isinstance(url, str) else None
    if origin == "text" and isinstance(data, str):
        text = data
    else:
        metadata["pdf"] = origin or "unknown"  # base64, url or file: no text here
    context = block.get("context")
    if isinstance(context, str):
        metadata["context"] = context
    if not metadata:
        return source_type(_numbered(u"document:", index), text, url, title)
    return source_type(_numbered(u"document:", index), text, url, title, None, None,
                       read_only(metadata))


cdef enum:
    _AHEAD = 64  # the blocks of a message loaded ahead, at most


cdef inline void _prefetch_dict(PyObject* value) noexcept:
    """Start loading a dict's key table (its first three lines: the indices and entries of a
    small dict)."""
    cdef char* keys = <char*>(<PyDictObject*>value).ma_keys
    _prefetch(keys)
    _prefetch(keys + 64)
    _prefetch(keys + 128)


cdef int _load_ahead(list blocks) except -1:
    """Start loading the objects the document loop reads, for all of a message's blocks at
    once, wave by wave: the blocks, their key tables, each block's ``source`` and its key
    table, then its ``data``. A request is cold in memory by the time its answer comes back,
    and read block after block, each of these ~8 lines waits for the one before it (~3 us for
    five documents); loaded ahead, the waits overlap. Reads what the loop reads; a lookup may
    run a key's ``__eq__``, so what is looked into is held by a reference, and what is only
    loaded ahead is never read here.
    """
    cdef Py_ssize_t at, size = min(len(blocks), _AHEAD)
    cdef PyObject* block
    cdef PyObject* found
    cdef list held = []  # the blocks' sources
    for at in range(size):  # no Python code runs in the first two waves
        _prefetch(PyList_GET_ITEM(blocks, at))
    for at in range(size):
        block = PyList_GET_ITEM(blocks, at)
        if PyDict_CheckExact(block):
            _prefetch_dict(block)
    for at in range(size):
        if at >= len(blocks):
            break
        item = blocks[at]
        if type(item) is dict:
            found = PyDict_GetItemWithError(item, u"source")
            if found != NULL:
                _prefetch(found)
                held.append(<object>found)
    for source in held:
        if type(source) is dict:
            _prefetch_dict(<PyObject*>source)
    for source in held:
        if type(source) is dict:
            found = PyDict_GetItemWithError(source, u"data")
            if found != NULL:
                _prefetch(found)
    return 0


def anthropic_documents(list messages, object source_type, object no_metadata,
                        object read_only):
    """The request's ``document`` blocks as sources (``_anthropic._request_sources`` where
    no document is made of content blocks and there are no search results), or None: the
    reference decides.
    """
    cdef list found = []
    cdef dict block
    cdef Py_ssize_t documents = 0
    for message in messages:
        if type(message) is not dict:
            if isinstance(message, dict):
                return None
            continue
        content = (<dict>message).get("content")
        if type(content) is not list:
            if isinstance(content, list):
                return None
            continue
        _load_ahead(<list>content)
        for item in <list>content:
            if type(item) is not dict:
                if isinstance(item, dict):
                    return None
                continue
            block = <dict>item
            kind = block.get("type")
            if kind == "search_result" or kind == "tool_result" or \
                    kind == "web_fetch_tool_result":
                return None  # numbered with what they hold: the reference's
            if kind != "document":
                continue
            source = block.get("source")
            if type(source) is not dict:
                if source is not None:
                    return None
                source = {}
            origin = (<dict>source).get("type")
            if origin == "content":
                return None  # its blocks: the reference's
            data = (<dict>source).get("data")
            title = block.get("title")
            title = title if isinstance(title, str) and title else None
            if origin == "text" and isinstance(data, str) and "context" not in block:
                found.append(new_record(source_type, (
                    _numbered(u"document:", documents), data, None, title, None, None,
                    no_metadata)))
            else:
                found.append(_document(block, <dict>source, origin, data, title, documents,
                                       source_type, read_only))
            documents += 1
    return found


def gemini_chunks(list chunks, object source_type, object no_metadata):
    """A candidate's grounding chunks as sources (``_gemini._chunk``), or None: the reference
    decides.
    """
    cdef list found = []
    cdef Py_ssize_t index
    for index in range(len(chunks)):
        chunk = chunks[index]
        if type(chunk) is not dict:
            return None
        web = (<dict>chunk).get("web")
        context = (<dict>chunk).get("retrieved_context")
        if context is None and "retrieved_context" not in <dict>chunk:
            context = (<dict>chunk).get("retrievedContext")
        if (web is not None and type(web) is not dict) or \
                (context is not None and type(context) is not dict):
            return None
        place = web if web is not None else context
        if place is None:
            return None  # a chunk of another kind (maps, an image): the reference's
        uri = (<dict>place).get("uri")
        title = (<dict>place).get("title")
        text = (<dict>place).get("text")
        if text is not None and type(text) is not str:
            return None
        found.append(new_record(source_type, (
            _numbered(u"chunk:", index), text if text is not None else "",
            uri if isinstance(uri, str) else None,
            title if isinstance(title, str) and title else None, None, None, no_metadata)))
    return found


def bedrock_references(list citations, object given_ids, str chunk_key, object source_type,
                       object read_only):
    """The chunks a response's citations retrieved, once each and not among ``given_ids``,
    as sources (``BedrockFormat.snapshot`` where every chunk has its id and no location), or
    None: the reference decides.
    """
    cdef list found = []
    cdef set known = set(given_ids)
    cdef dict kept
    for citation in citations:
        if type(citation) is not dict:
            if isinstance(citation, dict):
                return None
            continue
        references = (<dict>citation).get("retrievedReferences")
        if type(references) is not list:
            if references is not None:
                return None
            continue
        for reference in <list>references:
            if type(reference) is not dict:
                return None
            metadata = (<dict>reference).get("metadata")
            if type(metadata) is not dict and metadata is not None:
                return None
            location = (<dict>reference).get("location")
            if type(location) is not dict and location is not None:
                return None
            chunk = _bedrock_id(<dict>reference, chunk_key)
            if chunk is None:
                return None
            content = (<dict>reference).get("content")
            if type(content) is not dict and content is not None:
                return None
            text = (<dict>content).get("text") if content is not None else None
            if text is not None and type(text) is not str:
                return None
            where = _bedrock_where(<dict>reference)
            if chunk in known:
                continue  # a chunk cited again: read once
            known.add(chunk)
            kept = {"location": where}
            if metadata is not None:
                kept.update(<dict>metadata)
            found.append(new_record(source_type, (
                chunk, text if isinstance(text, str) else "",
                where if where is not None and (<str>where).startswith(("http://", "https://"))
                else None, None, None, None, read_only(kept))))
    return found


cdef bint _strings(object value, list into, int depth) except -1:
    """``_mistral._strings``: the strings in ``value``, however deeply listed, into ``into``
    (False: nested too deep to follow here).
    """
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, list):
        if depth > 32:
            return False
        for item in <list>value:
            if not _strings(item, into, depth + 1):
                return False
    return True


cdef object _mistral_results(dict results, set kept_keys, object text_keys,
                             object source_type, object no_metadata, object read_only):
    """A tool's numbered results as sources (``_mistral._source``), or None: the reference
    decides.
    """
    cdef list found = [], snippets
    for key, value in results.items():
        if type(value) is not dict:
            if isinstance(value, dict):
                return None
            continue
        result = <dict>value
        given = result.get("snippets")
        snippets = []
        if not _strings(given, snippets, 0):
            return None
        if len(snippets) == 1:
            text = snippets[0]  # what joining one string gives
        elif snippets:
            text = "\n".join(snippets)
        else:
            text = ""
            for name in text_keys:
                field = result.get(name)
                if isinstance(field, str):
                    text = field
                    break
        url = result.get("url")
        title = result.get("title")
        if _only(result, kept_keys):
            metadata = no_metadata
        else:
            metadata = read_only({k: v for k, v in result.items() if k not in kept_keys})
        found.append(new_record(source_type, (
            key if type(key) is str else str(key), text,
            url if isinstance(url, str) and url else None,
            title if isinstance(title, str) and title else None, None, None, metadata)))
    return found


cdef bint _only(dict value, set keys) except -1:
    """Whether every key of ``value`` is in ``keys`` (``value.keys() <= keys``)."""
    for key in value:
        if key not in keys:
            return False
    return True


def of_type(list items, str kind):
    """The objects among ``items`` whose ``type`` is ``kind`` (``[i for i in items if
    isinstance(i, dict) and i.get("type") == kind]``). A type of another length is passed
    over without comparing its characters (most blocks are of other types).
    """
    cdef list found = []
    cdef Py_ssize_t size = len(kind)
    cdef PyObject* value
    for item in items:
        if type(item) is dict:
            value = PyDict_GetItemWithError(item, u"type")
            if value != NULL and PyUnicode_CheckExact(<object>value) and \
                    PyUnicode_GET_LENGTH(<object>value) != size:
                continue
            if (<dict>item).get("type") == kind:
                found.append(item)
        elif isinstance(item, dict) and item.get("type") == kind:
            found.append(item)
    return found


def cohere_documents(list documents, object source_type, object no_metadata):
    """A Cohere request's documents given as strings, as sources ``doc:N``
    (``_cohere._documents``), or None: the reference decides.
    """
    cdef list found = []
    cdef Py_ssize_t index
    for index in range(len(documents)):
        document = documents[index]
        if type(document) is not str:
            return None
        found.append(new_record(source_type, (_numbered(u"doc:", index), document, None, None,
                                              None, None, no_metadata)))
    return found


def search_results(list results, tuple ids, object source_type, object no_metadata):
    """Perplexity's ``search_results`` as the sources ``ids`` (``PerplexityFormat.snapshot``),
    or None: the reference decides.
    """
    cdef list found = []
    cdef Py_ssize_t at
    for at in range(len(results)):
        result = results[at]
        if type(result) is not dict:
            return None
        item = <dict>result
        snippet = item.get("snippet")
        if snippet is not None and type(snippet) is not str:
            return None
        url = item.get("url")
        title = item.get("title")
        found.append(new_record(source_type, (
            ids[at], snippet if snippet is not None else "",
            url if isinstance(url, str) and url else None,
            title if isinstance(title, str) and title else None, None, None, no_metadata)))
    return found


def mistral_tools(list messages, object loads, set kept_keys, object text_keys,
                  object source_type, object no_metadata, object read_only):
    """The numbered references a Mistral request's tool messages returned, as sources
    (``_mistral._tool_results`` where each returns a JSON object as a string), or None: the
    reference decides.
    """
    cdef list found = []
    for message in messages:
        if type(message) is not dict:
            return None  # perhaps an SDK object
        if (<dict>message).get("role") != "tool":
            continue
        content = (<dict>message).get("content")
        if type(content) is not str:
            if isinstance(content, (str, list)):
                return None
            continue
        try:
            results = loads(content)
        except Exception:  # what the reference reads otherwise, or skips
            return None
        if type(results) is not dict:
            if isinstance(results, dict):
                return None
            continue
        read = _mistral_results(results, kept_keys, text_keys, source_type, no_metadata,
                                read_only)
        if read is None:
            return None
        found += read
    return found


def chat_message(object response):
    """A chat completion's ``choices[0].message`` (``_ranges.chat_message``): the message,
    ``{}`` where there is none, or None where a value is a subclass of dict or list (the
    reference reads it).
    """
    if type(response) is not dict:
        return None if isinstance(response, dict) else {}
    choices = (<dict>response).get("choices")
    if type(choices) is not list:
        return None if isinstance(choices, list) else {}
    if not choices:
        return {}
    first = (<list>choices)[0]
    if type(first) is not dict:
        return None if isinstance(first, dict) else {}
    message = (<dict>first).get("message")
    if type(message) is not dict:
        return None if isinstance(message, dict) else {}
    return message
