"""ember.backends.mps: Apple's Metal backend, which Ember does not have."""


def is_available() -> bool:
    """Whether an MPS device can be used: never."""
    return False


def is_built() -> bool:
    """Whether Ember was built with MPS: never."""
    return False
