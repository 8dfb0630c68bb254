"""The agents: their specs and parameters, the searches (alpha-beta, MCTS, the exact solver) against
references, the agents for hidden information, the learned Kalah player, plugins, and how
accurately and strongly they play."""
