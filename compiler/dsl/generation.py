"""`ninetoothed.generation`: where generated files go (`CACHE_DIR`, this compiler's cache folder:
`$NTC_CACHE_DIR`, else `~/.cache/ntc`). It is created when something is first written there."""

from compiler.runtime.cache import cache_dir

CACHE_DIR = cache_dir()
