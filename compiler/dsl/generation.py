"""`ninetoothed.generation`: where generated files go. `CACHE_DIR` is this compiler's cache folder
(`$NTC_CACHE_DIR`, else `~/.cache/ntc`), read when asked for, so the runtime is imported then and
not with `import ninetoothed`; it is created when something is first written there."""


def __getattr__(name: str):
    if name == "CACHE_DIR":
        from compiler.runtime.cache import cache_dir

        return cache_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
