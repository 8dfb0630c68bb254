"""UGI, the Universal Game Interface (UCI generalised to two-player games with sequential moves):
the lines the arena and an engine program exchange (:mod:`.protocol`), and the arena as a host
whose agents are engine programs (:mod:`.host`)."""
