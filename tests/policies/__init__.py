"""Tests of the shell parser, the dangerous-command guard and the protected-paths guard."""
