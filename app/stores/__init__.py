"""Qt-free stores of the app that every operation's context holds: the app's settings, the built-in agent's
settings and its run records. Below the operations (app/ops/context.py makes them), above envs/ and workflows/."""
