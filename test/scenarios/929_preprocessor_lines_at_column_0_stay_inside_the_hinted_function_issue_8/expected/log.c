int log_value(int v)
{
#ifdef VERBOSE
    trace(v);
#endif
    return emit(v) ? 0 : -1;
}

int log_twice(int v)
{
    return emit(v) + emit(v);
}
