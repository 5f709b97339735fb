"""Run inside the Roundup venv: `tracker.py seed DIR TEMPLATE PASSWORD`, `tracker.py web DIR URL` (write the
address the tracker checks requests against), `tracker.py issues DIR` (every issue as JSON, read through
Roundup's own API: title, priority, assignee, status and the text of its first message)."""
import json
import re
import subprocess
import sys
from pathlib import Path

ADMIN = str(Path(sys.executable).with_name("roundup-admin"))


def set_option(tracker, section, name, value):
    config = Path(tracker, "config.ini")
    text = config.read_text()
    head, _, rest = text.partition(f"[{section}]\n")
    rest = re.sub(rf"^#?\s*{re.escape(name)} = .*$", f"{name} = {value}", rest, count=1, flags=re.M)
    config.write_text(head + f"[{section}]\n" + rest)


def admin(tracker, *args):
    subprocess.run([ADMIN, "-i", tracker, *args], check=True, capture_output=True, input=b"y\n")


def seed(tracker, template, password):
    admin(tracker, "install", template, "sqlite")
    classic = Path(sys.executable).parents[1] / "share" / "roundup" / "templates" / "classic" / "initial_data.py"
    Path(tracker, "initial_data.py").write_text(classic.read_text())  # the same users and values for every theme
    set_option(tracker, "tracker", "web", "http://127.0.0.1:1/")
    set_option(tracker, "mail", "domain", "example.test")
    set_option(tracker, "mail", "host", "localhost")
    set_option(tracker, "mail", "debug", str(Path(tracker, "mail.log")))  # mail goes to a file
    admin(tracker, "initialise", password)
    for name, real in (("alice", "Alice Able"), ("bob", "Bob Baker"), ("carol", "Carol Clark")):
        admin(tracker, "create", "user", f"username={name}", f"realname={real}", "roles=User",
              f"address={name}@example.test", f"password={password}")
    for title, priority, status in (("Printer jams on page two", "bug", "chatting"),
                                    ("Add dark mode", "wish", "unread"),
                                    ("Login page is slow", "urgent", "in-progress")):
        admin(tracker, "create", "issue", f"title={title}", f"priority={priority}", f"status={status}")


def issues(tracker):
    import roundup.instance

    db = roundup.instance.open(tracker).open("admin")
    try:
        found = []
        for issue_id in db.issue.list():
            node = db.issue.getnode(issue_id)
            messages = node.messages
            found.append({
                "id": int(issue_id), "title": node.title,
                "priority": db.priority.get(node.priority, "name") if node.priority else None,
                "status": db.status.get(node.status, "name") if node.status else None,
                "assignedto": db.user.get(node.assignedto, "username") if node.assignedto else None,
                "note": db.msg.get(messages[0], "content").strip() if messages else None,
            })
        return found
    finally:
        db.close()


if __name__ == "__main__":
    verb, tracker = sys.argv[1], sys.argv[2]
    if verb == "seed":
        seed(tracker, sys.argv[3], sys.argv[4])
    elif verb == "web":
        set_option(tracker, "tracker", "web", sys.argv[3])
    else:
        print(json.dumps(issues(tracker)))
