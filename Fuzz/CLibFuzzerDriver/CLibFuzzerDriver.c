// Intentionally empty: the target exists for its header (see include/CLibFuzzerDriver.h).
