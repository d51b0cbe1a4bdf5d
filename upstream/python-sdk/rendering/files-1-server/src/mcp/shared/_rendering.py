"""Wire names and value rules of the rendering extension, shared by its server and client halves."""

import re

EXTENSION_ID = "io.modelcontextprotocol/rendering"
"""The extension identifier, also the `_meta` key of both carriers."""

GUIDANCE_MAX_LENGTH = 1000
"""The longest well-formed `guidance`, in code points."""

DEFAULT_NULL_DISPLAY = "n/a"
"""What a null shows as when a directive gives no usable `nullDisplay`."""

# The character classes of the `nullDisplay` pattern in the extension's schema (Unicode 14.0), frozen here so that
# the reading does not depend on the Unicode database of the running Python.
_FORBIDDEN = (  # control and format characters (Cc, Cf), and numeric ones (Nd, Nl, No, and ideographs such as 十)
    "\x00-\x1f0-9\x7f-\x9f\xad\xb2\xb3\xb9\xbc-\xbe\u0600-\u0605\u061c\u0660-\u0669\u06dd\u06f0-\u06f9\u070f"
    "\u07c0-\u07c9\u0890\u0891\u08e2\u0966-\u096f\u09e6-\u09ef\u09f4-\u09f9\u0a66-\u0a6f\u0ae6-\u0aef\u0b66-\u0b6f"
    "\u0b72-\u0b77\u0be6-\u0bf2\u0c66-\u0c6f\u0c78-\u0c7e\u0ce6-\u0cef\u0d58-\u0d5e\u0d66-\u0d78\u0de6-\u0def"
    "\u0e50-\u0e59\u0ed0-\u0ed9\u0f20-\u0f33\u1040-\u1049\u1090-\u1099\u1369-\u137c\u16ee-\u16f0\u17e0-\u17e9"
    "\u17f0-\u17f9\u180e\u1810-\u1819\u1946-\u194f\u19d0-\u19da\u1a80-\u1a89\u1a90-\u1a99\u1b50-\u1b59\u1bb0-\u1bb9"
    "\u1c40-\u1c49\u1c50-\u1c59\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2070\u2074-\u2079\u2080-\u2089"
    "\u2150-\u2182\u2185-\u2189\u2460-\u249b\u24ea-\u24ff\u2776-\u2793\u2cfd\u3007\u3021-\u3029\u3038-\u303a"
    "\u3192-\u3195\u3220-\u3229\u3248-\u324f\u3251-\u325f\u3280-\u3289\u32b1-\u32bf\u3405\u3483\u382a\u3b4d\u4e00"
    "\u4e03\u4e07\u4e09\u4e5d\u4e8c\u4e94\u4e96\u4ebf\u4ec0\u4edf\u4ee8\u4f0d\u4f70\u5104\u5146\u5169\u516b\u516d"
    "\u5341\u5343-\u5345\u534c\u53c1-\u53c4\u56db\u58f1\u58f9\u5e7a\u5efe\u5eff\u5f0c-\u5f0e\u5f10\u62fe\u634c\u67d2"
    "\u6f06\u7396\u767e\u8086\u842c\u8cae\u8cb3\u8d30\u9621\u9646\u964c\u9678\u96f6\ua620-\ua629\ua6e6-\ua6ef"
    "\ua830-\ua835\ua8d0-\ua8d9\ua900-\ua909\ua9d0-\ua9d9\ua9f0-\ua9f9\uaa50-\uaa59\uabf0-\uabf9\uf96b\uf973\uf978"
    "\uf9b2\uf9d1\uf9d3\uf9fd\ufeff\uff10-\uff19\ufff9-\ufffb\U00010107-\U00010133\U00010140-\U00010178"
    "\U0001018a\U0001018b\U000102e1-\U000102fb\U00010320-\U00010323\U00010341\U0001034a\U000103d1-\U000103d5"
    "\U000104a0-\U000104a9\U00010858-\U0001085f\U00010879-\U0001087f\U000108a7-\U000108af\U000108fb-\U000108ff"
    "\U00010916-\U0001091b\U000109bc\U000109bd\U000109c0-\U000109cf\U000109d2-\U000109ff\U00010a40-\U00010a48"
    "\U00010a7d\U00010a7e\U00010a9d-\U00010a9f\U00010aeb-\U00010aef\U00010b58-\U00010b5f\U00010b78-\U00010b7f"
    "\U00010ba9-\U00010baf\U00010cfa-\U00010cff\U00010d30-\U00010d39\U00010e60-\U00010e7e\U00010f1d-\U00010f26"
    "\U00010f51-\U00010f54\U00010fc5-\U00010fcb\U00011052-\U0001106f\U000110bd\U000110cd\U000110f0-\U000110f9"
    "\U00011136-\U0001113f\U000111d0-\U000111d9\U000111e1-\U000111f4\U000112f0-\U000112f9\U00011450-\U00011459"
    "\U000114d0-\U000114d9\U00011650-\U00011659\U000116c0-\U000116c9\U00011730-\U0001173b\U000118e0-\U000118f2"
    "\U00011950-\U00011959\U00011c50-\U00011c6c\U00011d50-\U00011d59\U00011da0-\U00011da9\U00011fc0-\U00011fd4"
    "\U00012400-\U0001246e\U00013430-\U00013438\U00016a60-\U00016a69\U00016ac0-\U00016ac9\U00016b50-\U00016b59"
    "\U00016b5b-\U00016b61\U00016e80-\U00016e96\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U0001d2e0-\U0001d2f3"
    "\U0001d360-\U0001d378\U0001d7ce-\U0001d7ff\U0001e140-\U0001e149\U0001e2f0-\U0001e2f9\U0001e8c7-\U0001e8cf"
    "\U0001e950-\U0001e959\U0001ec71-\U0001ecab\U0001ecad-\U0001ecaf\U0001ecb1-\U0001ecb4\U0001ed01-\U0001ed2d"
    "\U0001ed2f-\U0001ed3d\U0001f100-\U0001f10c\U0001fbf0-\U0001fbf9\U00020001\U00020064\U000200e2\U00020121"
    "\U0002092a\U00020983\U0002098c\U0002099c\U00020aea\U00020afd\U00020b19\U00022390\U00022998\U00023b1b\U0002626d"
    "\U0002f890\U000e0001\U000e0020-\U000e007f"
)
_BLANK = (  # white space and invisible characters that are not in _FORBIDDEN
    "\x20\xa0\u034f\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180d\u180f\u2000-\u200a\u2028\u2029\u202f\u205f\u2065\u2800"
    "\u3000\u3164\ufe00-\ufe0f\uffa0\ufff0-\ufff8\U000e0000\U000e0002-\U000e001f\U000e0080-\U000e0fff"
)
_USABLE_NULL_TEXT = re.compile(f"[^{_FORBIDDEN}]*[^{_FORBIDDEN}{_BLANK}][^{_FORBIDDEN}]*")


def usable_null_text(text: str) -> bool:
    """Whether `text` can stand for a null without hiding it or passing for an amount.

    1 to 16 code points, at least one of them neither white space nor invisible,
    and no control, format or numeric character (one with a numeric value, such as
    `٣` or `十`): `-`, `n/a` and `無` are usable; `""`, `" "`, `"\u2800"`, `0`, `٣` and `十` are not.
    """
    return len(text) <= 16 and _USABLE_NULL_TEXT.fullmatch(text) is not None
