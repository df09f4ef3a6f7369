# cython: language_level=3
"""Named tuples built and read from C, shared by the compiled modules (``cimport``-ed: each
module compiles its own inline copy).
"""

from cpython.ref cimport PyObject, Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_SIZE


cdef extern from "Python.h":
    PyObject* PyTuple_GET_ITEM(object value, Py_ssize_t index)
    void PyTuple_SET_ITEM(object value, Py_ssize_t index, PyObject* item)
    ctypedef struct PyTypeObject:
        PyObject* (*tp_alloc)(PyTypeObject* kind, Py_ssize_t items)
    int PyType_IsSubtype(PyTypeObject* kind, PyTypeObject* base)
    PyTypeObject PyTuple_Type


cdef inline object item(object value, Py_ssize_t at):
    """``value[at]``, read in place when ``value`` is a tuple or a named tuple. A subclass of
    tuple is indexed from C through its generic ``__getitem__`` slot (a method call, ~750
    instructions), so spans and markers are read as the tuples they are.
    """
    if PyTuple_Check(value) and 0 <= at < PyTuple_GET_SIZE(value):
        return <object>PyTuple_GET_ITEM(value, at)
    return value[at]


cdef inline object new_record(object kind, tuple values):
    """``tuple.__new__(kind, values)`` for a named tuple ``kind``, without the Python call:
    the instance is allocated by its type and the values set in place (what
    ``tuple.__new__`` does after copying them into a tuple of its own).
    """
    cdef Py_ssize_t size = PyTuple_GET_SIZE(values), at
    cdef PyObject* made
    cdef PyObject* value
    if not isinstance(kind, type) or not PyType_IsSubtype(<PyTypeObject*>kind, &PyTuple_Type):
        return tuple.__new__(kind, values)
    made = (<PyTypeObject*>kind).tp_alloc(<PyTypeObject*>kind, size)
    if made == NULL:
        raise MemoryError()
    record = <object>made  # a second reference: the one tp_alloc made is dropped
    Py_DECREF(record)
    for at in range(size):
        value = PyTuple_GET_ITEM(values, at)
        Py_INCREF(<object>value)
        PyTuple_SET_ITEM(record, at, value)  # steals the reference just taken
    return record
