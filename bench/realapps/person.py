"""A person's flow, written once per application for its recorded variant, played with real X input.

The steps say what a person does and where they look: a `target` is a JavaScript expression that evaluates to
the element the person sees and means (it may open shadow roots: `document.querySelector('x').shadowRoot...`);
`frame` names the iframe (a CSS selector in the top page) when the element is in a cross-origin frame. Only the
harness's eyes read these expressions (tests/support/xinput.py evaluates them over the DevTools protocol,
never through the tool under test); the tools see nothing but the real mouse and keyboard.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from tests.support.xinput import Eyes, Hands, Screen


@dataclass(frozen=True)
class Click:
    target: str
    frame: str | None = None
    at: tuple[float, float] = (0.5, 0.5)   # where in the element's box (fractions of its width and height)
    note: str = ""


@dataclass(frozen=True)
class Type:
    text: str


@dataclass(frozen=True)
class Key:
    key: str   # an xdotool key name: Return, Tab, Down


@dataclass(frozen=True)
class WaitFor:
    """Wait until the person sees this: `target` evaluates to a visible element (or true)."""

    target: str
    frame: str | None = None
    timeout: float = 30.0


@dataclass(frozen=True)
class WaitUrl:
    """Wait until the address contains this (a page the person was sent to)."""

    part: str
    timeout: float = 30.0


Step = Click | Type | Key | WaitFor | WaitUrl


def text_is(selector: str, text: str, root: str = "document") -> str:
    """The expression for the element matched by `selector` whose visible text is exactly `text`."""
    return (f"[...{root}.querySelectorAll({selector!r})].find(e => (e.textContent || '').replace(/\\s+/g, ' ')"
            f".trim().toLowerCase() === {text.lower()!r})")


def q(selector: str, root: str = "document") -> str:
    return f"{root}.querySelector({selector!r})"


def play(steps: list[Step], eyes: "Eyes", hands: "Hands", say: Callable[[str], None] = lambda _m: None) -> None:
    """Do the steps as a person: look for the element (waiting while the page builds it), bring it into view
    with the mouse wheel when it is outside the window, and click it; type; press keys; wait for pages."""
    for number, step in enumerate(steps, 1):
        say(f"  {number:2}. {describe(step)}")
        if isinstance(step, Click):
            box = _settled(eyes, step, eyes.wait(step.target, step.frame))
            box = _into_view(eyes, hands, step, box)
            if step.frame is None:  # the top page sees the pointer: aim with its help
                eyes.aim(hands, *box.point(*step.at))
                hands.click_here()
            else:
                hands.click(*eyes.to_screen(*box.point(*step.at)))
        elif isinstance(step, Type):
            hands.type(step.text)
        elif isinstance(step, Key):
            hands.key(step.key)
        elif isinstance(step, WaitFor):
            eyes.wait(step.target, step.frame, step.timeout)
        elif isinstance(step, WaitUrl):
            eyes.wait_url(step.part, step.timeout)


def _settled(eyes: "Eyes", step: Click, box: Any) -> Any:
    """Wait until the element stops moving (a page still laying out, fonts and styles arriving), as a person's
    eye waits before the hand goes: the same box twice, 150 ms apart (up to 5 s)."""
    for _look in range(25):
        time.sleep(0.15)
        again = eyes.wait(step.target, step.frame)
        if again == box:
            return again
        box = again
    return box


def _into_view(eyes: "Eyes", hands: "Hands", step: Click, box: Any) -> Any:
    for _notch in range(40):
        if not hasattr(box, "in_view") or box.in_view():
            return box
        x, y = eyes.to_screen(box.vw / 2, box.vh / 2)
        if box.y < 0 or box.y + box.h > box.vh:
            hands.wheel(x, y, down=box.y + box.h > box.vh)
        else:
            hands.wheel(x, y, down=box.x + box.w > box.vw, sideways=True)
        box = eyes.wait(step.target, step.frame)
    raise RuntimeError(f"could not scroll {step.target[:80]} into view")


def describe(step: Step) -> str:
    if isinstance(step, Click):
        return f"click {step.note or step.target[:90]}" + (f" in {step.frame}" if step.frame else "")
    if isinstance(step, Type):
        return f"type {step.text!r}"
    if isinstance(step, Key):
        return f"press {step.key}"
    if isinstance(step, WaitFor):
        return f"wait for {step.target[:90]}"
    return f"wait for an address with {step.part}"


def perform(screen: "Screen", eyes: "Eyes", steps: list[Step], work: Path, name: str,
            say: Callable[[str], None]) -> None:
    """The person at the screen: waits for the page, finds where it is on the screen, does the steps (a
    screenshot `<name>-record-failed.png` when they could not be done, `<name>-record-end.png` when they were)."""
    from tests.support.xinput import Hands

    hands = Hands(screen)
    eyes.wait("document.readyState === 'complete'", timeout=60)
    eyes.calibrate(hands)
    try:
        play(steps, eyes, hands, say)
    except Exception:
        screen.screenshot(work / f"{name}-record-failed.png")
        raise
    screen.screenshot(work / f"{name}-record-end.png")
