"""``triton.tools``: the host-side tensor descriptor (:mod:`.tensor_descriptor`)."""
