"""The shell reader: Bash command lines read the way bash reads them, without running anything.

`syntax` (lexer, parser, word expansion, wrapper and interpreter tables), `variables` (literal
values of shell variables), `finds` (what a `find` line does), `code` (what literal interpreter
code does), `lazyre` (patterns compiled on first use)."""
