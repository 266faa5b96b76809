"""Keeping obvious secrets out of the audit: tokens, keys and passwords are masked."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import re
    from typing import Any

# Each rule: a pattern and literal pieces one of which every match contains. A pattern is
# compiled (and `re` imported) only when a text holds one of its pieces: compiling them all costs
# 1.5 ms, a tenth of a hook call, and ordinary audit records hold none. Pieces of a
# case-insensitive pattern are looked for in the lower-cased text when it is ASCII; `re` folds
# some other letters to ASCII ones (dotless i to i, long s to s), so a non-ASCII text is always
# matched against such a pattern.
_AWS_KEY_ID = r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"  # AWS access key ids
_AWS_KEY_ID_PIECES = ("AKIA", "ASIA")
_RULES: "tuple[tuple[str, tuple[str, ...]], ...]" = (
    # Twilio first: its pieces are in the mask itself ("[REDACTED]" holds "AC")
    (r"(?<![A-Za-z0-9])(?:AC|SK)[a-z0-9]{32}(?![A-Za-z0-9])", ("AC", "SK")),
    (
        r"(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
        ("-----BEGIN ",),
    ),
    (r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}", ("sk-", "pk-", "rk-")),  # OpenAI/Anthropic/Stripe
    (r"\bgh[pousr]_[A-Za-z0-9]{20,}", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),  # GitHub
    (r"\bgithub_pat_[A-Za-z0-9_]{20,}", ("github_pat_",)),
    (r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", ("sk_", "pk_", "rk_")),  # Stripe
    (r"\bglpat-[A-Za-z0-9_\-]{20,}", ("glpat-",)),  # GitLab
    (r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    (r"\bAIza[A-Za-z0-9_\-]{35}", ("AIza",)),  # Google API keys
    (r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", ("xox",)),  # Slack
    (_AWS_KEY_ID, _AWS_KEY_ID_PIECES),
    (r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", ("eyJ",)),  # JWTs
    (r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}", ("bearer", "basic")),
    # user:password@ in a URL of any scheme; up to the last @ of the word, as a password may
    # hold an unescaped @ (masking a little more is harmless)
    (r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:[^\s/]*@", ("://",)),
    (r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}", ("SG.",)),  # SendGrid
    (r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", ("pypi-AgE",)),  # PyPI (and TestPyPI) upload tokens
    # Discord bot tokens: the first part is a user id (digits) in base64, so it starts with
    # the base64 of a digit and the next one
    (
        r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}",
        ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"),
    ),
)
_SECRET_NAME = (
    r"[A-Za-z0-9_\-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|"
    r"access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_\-]*"
    r"|(?:[A-Za-z0-9\-]*[_-]|(?<![A-Za-z0-9]))pass\b"
    r"|[A-Za-z0-9\-]*[_-]pwd?\b"  # DB_PW, MYSQL_PWD (never `PWD` alone: the working directory)
)
_SECRET_PIECES = (
    *(f"{stem}{joint}key" for stem in ("api", "access", "private") for joint in ("", "_", "-")),
    "pass",
    "secret",
    "token",
    "credential",
    "_pw",
    "-pw",
)
# A value already masked is no value: a later pass goes on to the next one (see redact_text).
_VALUE = r"(?![\"']?\[REDACTED\])(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s\"',;&|]{4,}))"
_SHORT_VALUE = _VALUE.replace("{4,}", "+")
_MYSQL = r"\b(?:mysql[a-z]*|mariadb[a-z-]*)\b"
# The user of `-u USER:PASSWORD`: not a number (`docker run -u 1000:1000` is a uid and a gid),
# nor a date format (`date -u +%H:%M`), nor an option.
_USER = r"(?!\d+:)[^\s:\"'+%\-][^\s:\"']*"
# A named secret: the name is kept, the value masked (its quotes kept). key=value, key: value,
# --flag value, --flag=value (of any length), curl's -u user:password, the MySQL clients'
# -pPASSWORD and sshpass's -p PASSWORD.
_NAMED: "tuple[tuple[str, tuple[str, ...]], ...]" = (
    (rf"(?i)((?<!\S)--?(?:{_SECRET_NAME})=){_SHORT_VALUE}", _SECRET_PIECES),
    (rf"(?i)((?:{_SECRET_NAME})[\"']?\s*[:=]\s*){_VALUE}", _SECRET_PIECES),
    (rf"(?i)((?<!\S)--?(?:{_SECRET_NAME})\s+)(?!-){_VALUE}", _SECRET_PIECES),
    (rf"((?<!\S)(?:-u|--user)\s+[\"']?{_USER}:){_VALUE}", ("-u", "--user")),
    (rf"((?i:{_MYSQL})[^\n;&|]*?\s-p){_SHORT_VALUE}", ("mysql", "mariadb")),
    (r"(\bsshpass\b[^\n;&|]*?\s-p\s*)" + _SHORT_VALUE, ("sshpass",)),
    (rf"((?<!\S)-u[\"']?{_USER}:){_VALUE}", ("-u",)),  # curl -uUSER:PASSWORD, attached
    # smbclient, rpcclient, net ...: -U USER%PASSWORD
    (
        rf"((?<!\S)(?:-U\s*|--user(?:name)?[=\s]\s*)[\"']?[^\s%\"']+%){_SHORT_VALUE}",
        ("-U", "--user"),
    ),
    # An Authorization header of any scheme (token, Bearer, Basic, Digest ...): the credential
    (
        rf"(?i)(\bauthorization[\"']?\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate|ntlm|"
        rf"apikey|api-key|key|sso-key|otp|dpop|hmac|aws4-hmac-sha256)\s+)?){_VALUE}",
        ("authorization",),
    ),
    (rf"(?i)(\b(?:AccountKey|SharedAccessKey)\s*=\s*){_VALUE}", ("accountkey", "sharedaccesskey")),
    # keytool and jarsigner: -storepass, -keypass, -srcstorepass, -destkeypass ...
    (
        rf"(?i)((?<!\S)-(?:src|dest|new)?(?:store|key)pass(?::env|:file)?\s+){_SHORT_VALUE}",
        ("storepass", "keypass"),
    ),
    (
        r"(\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b"
        r"[^\n;&|]*?\s-p\s*)" + _SHORT_VALUE,
        ("login",),
    ),
    (r"(\b(?:redis|valkey|keydb)-cli\b[^\n;&|]*?\s-a\s+)" + _SHORT_VALUE, ("-cli",)),
    (r"(\b7z[arz]?\b[^\n;&|]*?\s-p)" + _SHORT_VALUE, ("7z",)),  # 7z -pSECRET
    (r"(\b(?:zip|unzip|zipcloak|funzip)\b[^\n;&|]*?\s-P\s*)" + _SHORT_VALUE, ("zip",)),
    (r"(\bldap[a-z]*\b[^\n;&|]*?\s-w\s*)" + _SHORT_VALUE, ("ldap",)),
    (r"(\bldappasswd\b[^\n;&|]*?\s-[as]\s*)" + _SHORT_VALUE, ("ldappasswd",)),
    # htpasswd -b [FILE] USER PASSWORD: the last word of the three (two with -n)
    (
        r"(\bhtpasswd\b(?:\s+-[A-Za-z]+)*?\s+-[A-Za-z]*b[A-Za-z]*(?:\s+-[A-Za-z]+)*"
        r"(?:\s+[^\s;&|\-][^\s;&|]*){1,2}\s+)" + _SHORT_VALUE,
        ("htpasswd",),
    ),
    (r"(\bssh-keygen\b[^\n;&|]*?\s-[NP]\s*)" + _SHORT_VALUE, ("ssh-keygen",)),
    (r"(\bopenssl\b[^\n;&|]*?\s-[kK]\s+)" + _SHORT_VALUE, ("openssl",)),
    (r"(\baz\s+(?:login|ad\s+sp\s+create-for-rbac)\b[^\n;&|]*?\s-p\s+)" + _SHORT_VALUE, ("az ",)),
    # aws configure set aws_secret_access_key SECRET (and a profile's, profile.x.aws_...)
    (
        rf"(?i)(\bconfigure\s+set\s+(?:[\w-]+\.)*[\w-]*(?:secret|token|password)[\w-]*\s+){_VALUE}",
        ("configure",),
    ),
)
# An AWS secret access key has no prefix: 40 base64 characters, masked in a text that also
# holds an AWS key id. (Run before the key id itself is masked.)
_AWS_SECRET = r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
MASK = "[REDACTED]"
# The pieces of the case-insensitive rules lower-cased, and those of the others as they are: a
# text that holds none of them (lower-cased, for the first) matches no rule.
_ALL_RULES = (*_RULES, *_NAMED)
_ANY_PIECE = tuple(
    sorted(
        {p.lower() for source, pieces in _ALL_RULES if source.startswith("(?i)") for p in pieces}
    )
)
_ANY_EXACT = tuple(
    sorted({p for source, pieces in _ALL_RULES if not source.startswith("(?i)") for p in pieces})
)
# Keys judged so far (their redacted form, whether they name a secret): a record repeats its
# keys once per sub-hook. Bounded, for a process that redacts many records.
_KEYS: "dict[str, tuple[str, bool]]" = {}
_KEYS_KEPT = 4096


def _may_match(text: str, folded: "str | None", source: str, pieces: "tuple[str, ...]") -> bool:
    """Whether `text` (`folded`: it lower-cased, None when it is not ASCII) holds a piece."""
    if source.startswith("(?i)"):
        if folded is None:
            return True
        text = folded
    return _holds(text, pieces)


def _folded(text: str) -> "str | None":
    return text.lower() if text.isascii() else None


def _masked(found: "re.Match[str]") -> str:
    quote = '"' if found.group(2) else "'" if found.group(3) else ""
    return f"{found.group(1)}{quote}{MASK}{quote}"


def _compiled(source: str) -> "re.Pattern[str]":
    import re  # only for a text that may hold a secret: most hook calls never load `re`

    return re.compile(source)  # `re` caches the compiled pattern


def _holds(text: str, pieces: "tuple[str, ...]") -> bool:
    """Whether `text` holds one of `pieces`. A plain loop: twice as fast as any() over a
    generator or a map of __contains__, and every string of an audit record passes here."""
    for piece in pieces:  # noqa: SIM110 (see above)
        if piece in text:
            return True
    return False


def redact_text(text: str) -> str:
    folded = _folded(text)  # once: most texts are judged by pieces alone, 40 rules over them
    if folded is not None and not _holds(folded, _ANY_PIECE) and not _holds(text, _ANY_EXACT):
        return text  # the common case: no rule's piece at all
    aws = _may_match(text, folded, _AWS_KEY_ID, _AWS_KEY_ID_PIECES)
    if aws and _compiled(_AWS_KEY_ID).search(text):  # the bare secret first: see _AWS_SECRET
        text = _compiled(_AWS_SECRET).sub(MASK, text)
    for rules, replacement in ((_RULES, MASK), (_NAMED, _masked)):
        for source, pieces in rules:
            if _may_match(text, folded, source, pieces):
                pattern = _compiled(source)
                masked = pattern.sub(replacement, text)
                # Again until nothing changes: a match of `ssh-keygen … -P X` consumes the
                # program's name, so the `-N Y` after it needs a pass of its own.
                while masked != text:
                    text, folded = masked, _folded(masked)
                    masked = pattern.sub(replacement, text)
    return text


def redact(value: "Any", whole: bool = False) -> "Any":
    """A copy of JSON-like data with every string redacted, keys included; every string under
    a key that names a secret (`"password": ...`) is masked whole."""
    if isinstance(value, str):
        return MASK if whole else redact_text(value)
    if isinstance(value, dict):
        copy: dict[Any, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                copy[key] = redact(item, whole)
                continue
            name, secret = _judged_key(key)
            while name in copy:  # two keys masked alike both stay
                name += "'"
            copy[name] = redact(item, whole or secret)
        return copy
    if isinstance(value, list | tuple):
        return [redact(item, whole) for item in value]
    return value


def _judged_key(key: str) -> "tuple[str, bool]":
    judged = _KEYS.get(key)
    if judged is None:
        folded = _folded(key)
        if folded is not None and not _holds(folded, _ANY_PIECE) and not _holds(key, _ANY_EXACT):
            judged = (key, False)  # no rule's piece: nothing to mask, and no secret's name
        else:
            judged = (redact_text(key), _names_secret(key))
        if len(_KEYS) < _KEYS_KEPT:
            _KEYS[key] = judged
    return judged


def _names_secret(key: str) -> bool:
    return _may_match(key, _folded(key), "(?i)", _SECRET_PIECES) and bool(
        _compiled(f"(?i){_SECRET_NAME}").fullmatch(key)
    )
