#!/usr/bin/env python3
"""Drives the page `speak serve` answers at `/` in headless Chromium, as a person would, and prints
what it saw as one JSON object. Chromium's fake microphone plays --mic (a WAV) once.

    drive_page.py URL TOKEN speak --text "…" [--voice NAME]
    drive_page.py URL TOKEN record --mic FILE.wav --seconds S [--retry-token GOOD]
        (with --retry-token, TOKEN is refused; the page is reloaded, the right token goes in, and
        Retry sends the recording it kept)
    drive_page.py URL TOKEN caption --mic FILE.wav
        (Record; while recording, the live caption is read until a turn of it is complete, then Stop,
        and the uploaded recording's text is awaited)
    drive_page.py URL TOKEN wrong-token
    drive_page.py URL TOKEN untyped          (with no token typed: what the page shows on arrival, then
                                             what Speak answers)
    drive_page.py URL TOKEN stop --text "…"  (Speak; once the whole reply has downloaded and plays, Stop)
    drive_page.py URL TOKEN token-change     (TOKEN lists the voices; then a wrong one is typed)
    drive_page.py URL TOKEN unanswered --handshake PATH
        (the page and its voices loaded, PATH.ready is made; once PATH exists, Speak is pressed)
    drive_page.py URL TOKEN narrow
    drive_page.py URL TOKEN speak,record …      (scenarios in turn, on one page)
    (any of them: --screenshot FILE.png --width W --height H)

Every wait polls for a condition until a deadline; nothing sleeps.
"""
import argparse
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

DEADLINE = 60


def browser(mic, width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-first-run", "--disable-extensions", "--mute-audio",
                 f"--window-size={width},{height}",
                 "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]:
        options.add_argument(flag)
    if mic:
        options.add_argument(f"--use-file-for-fake-audio-capture={mic}%noloop")
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def until(driver, condition, what):
    try:
        return WebDriverWait(driver, DEADLINE, poll_frequency=0.05).until(lambda _: condition())
    except Exception:
        raise SystemExit(f"timed out waiting for {what}; page said: {errors(driver)}")


def text(driver, element_id):
    return driver.execute_script(f"return document.getElementById('{element_id}').textContent")


def errors(driver):
    return {name: text(driver, name) for name in ["token-error", "speak-error", "record-error", "record-status"]}


def enter_token(driver, token):
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token, Keys.TAB)  # leaving the field saves it and lists the voices


def speak(driver, args, result):
    enter_token(driver, args.token)
    until(driver, lambda: len(Select(driver.find_element(By.ID, "voice")).options) > 1
          or errors(driver)["token-error"], "the voices")
    result["voices"] = [option.get_attribute("value") for option in Select(driver.find_element(By.ID, "voice")).options]
    if args.voice:
        Select(driver.find_element(By.ID, "voice")).select_by_value(args.voice)
    box = driver.find_element(By.ID, "text")
    box.clear()
    box.send_keys(args.text)
    # By keyboard: from the text box, Tab reaches the Speak button and Enter presses it.
    box.send_keys(Keys.TAB)
    result["focused"] = driver.execute_script("return document.activeElement.id")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    until(driver, lambda: driver.execute_script("return document.getElementById('player').dataset.ended")
          or errors(driver)["speak-error"], "the reply to play to its end")
    result.update(driver.execute_script("""
        const player = document.getElementById('player');
        const played = player.played;
        return {mode: player.dataset.mode, bytes: Number(player.dataset.bytes), duration: player.duration,
                playedEnd: played.length ? played.end(played.length - 1) : 0,
                playedStart: played.length ? played.start(0) : -1,
                ended: player.ended};"""))


def record(driver, args, result):
    enter_token(driver, args.token)
    driver.find_element(By.ID, "record").click()
    until(driver, lambda: driver.execute_script("return document.body.dataset.recorder") == "recording"
          or errors(driver)["record-error"], "recording to start")
    peak = 0.0

    def long_enough():
        nonlocal peak
        level, seconds = driver.execute_script(
            "return [document.getElementById('level').value, parseFloat(document.getElementById('duration').value)]")
        peak = max(peak, level)
        return seconds >= args.seconds

    until(driver, long_enough, f"{args.seconds} s of recording")
    result["peakLevel"] = peak
    result["duration"] = text(driver, "duration")
    driver.find_element(By.ID, "record").click()
    until(driver, lambda: text(driver, "transcript") or errors(driver)["record-error"], "the transcription")
    if args.retry_token:
        result["firstError"] = errors(driver)["record-error"]
        result["retryOffered"] = driver.find_element(By.ID, "retry").is_displayed()
        driver.refresh()
        until(driver,
              lambda: driver.execute_script("return document.body && document.body.dataset.recorder") == "failed",
              "the kept recording after a reload")
        result["keptAcrossReload"] = driver.find_element(By.ID, "retry").is_displayed()
        enter_token(driver, args.retry_token)
        driver.find_element(By.ID, "retry").click()
        until(driver,
              lambda: text(driver, "transcript") or errors(driver)["record-error"] not in ("", result["firstError"]),
              "the retried transcription")
        result["retryOfferedAfter"] = driver.find_element(By.ID, "retry").is_displayed()
    result["transcript"] = text(driver, "transcript")
    result["caption"] = caption_state(driver)
    result["type"] = driver.execute_script(
        "return ['audio/webm;codecs=opus','audio/mp4','audio/ogg;codecs=opus']"
        ".find(t => MediaRecorder.isTypeSupported(t))")


def caption_state(driver):
    return driver.execute_script("""
        const caption = document.getElementById('caption');
        return {text: caption.dataset.text || '', live: caption.dataset.live || '',
                turns: Number(caption.dataset.turns || 0), shown: !caption.hidden,
                partial: [...caption.querySelectorAll('.partial')].map(e => e.textContent).join('').trim(),
                recorder: document.body.dataset.recorder};""")


def caption(driver, args, result):
    enter_token(driver, args.token)
    driver.find_element(By.ID, "record").click()
    until(driver, lambda: driver.execute_script("return document.body.dataset.recorder") == "recording"
          or errors(driver)["record-error"], "recording to start")
    seen = []

    def turn_complete():
        state = caption_state(driver)
        if state["text"] and (not seen or seen[-1]["text"] != state["text"]):
            seen.append(state)
        return state["turns"] > 0 or state["live"] == "unavailable"

    until(driver, turn_complete, "a complete turn in the live caption while recording")
    result["captions"] = seen  # each caption shown while recording, as it changed
    result["whileRecording"] = caption_state(driver)
    driver.find_element(By.ID, "record").click()
    until(driver, lambda: text(driver, "transcript") or errors(driver)["record-error"], "the transcription")
    result["transcript"] = text(driver, "transcript")
    result["afterUpload"] = caption_state(driver)


def wrong_token(driver, args, result):
    enter_token(driver, args.token)  # the caller passes a token the server does not know
    until(driver, lambda: errors(driver)["token-error"], "the token's error")
    driver.find_element(By.ID, "speak").click()
    until(driver, lambda: errors(driver)["speak-error"], "the speech error")


def voice_names(driver):
    return [option.get_attribute("value") for option in Select(driver.find_element(By.ID, "voice")).options]


def untyped(driver, args, result):
    until(driver, lambda: driver.execute_script("return document.body.dataset.voices"), "the voices' answer")
    result["voices"] = voice_names(driver)
    result["onArrival"] = errors(driver)
    driver.find_element(By.ID, "speak").click()
    until(driver, lambda: errors(driver)["speak-error"] or player_state(driver)["received"], "Speak's outcome")


def player_state(driver):
    return driver.execute_script("""
        const player = document.getElementById('player');
        return {received: player.dataset.received === 'all', paused: player.paused, ended: player.ended,
                currentTime: player.currentTime, duration: player.duration};""")


def stop(driver, args, result):
    enter_token(driver, args.token)
    until(driver, lambda: len(voice_names(driver)) > 1 or errors(driver)["token-error"], "the voices")
    box = driver.find_element(By.ID, "text")
    box.clear()
    box.send_keys(args.text)
    driver.find_element(By.ID, "speak").click()
    until(driver, lambda: (lambda state: state["received"] and not state["paused"] and state["currentTime"] > 0)(
        player_state(driver)) or errors(driver)["speak-error"], "the whole reply downloaded and playing")
    result["whenDownloaded"] = player_state(driver)
    button = driver.find_element(By.ID, "stop-speaking")
    result["stopShownWhilePlaying"] = button.is_displayed()
    if button.is_displayed():
        button.click()
        until(driver, lambda: player_state(driver)["paused"], "the player to stop")
    until(driver, lambda: driver.find_element(By.ID, "speak").is_enabled(), "Speak to be offered again")
    result["afterStop"] = player_state(driver)
    result["stopShownAfter"] = button.is_displayed()


def token_change(driver, args, result):
    enter_token(driver, args.token)
    until(driver, lambda: len(voice_names(driver)) > 1 or errors(driver)["token-error"], "the voices")
    result["voicesBefore"] = voice_names(driver)
    enter_token(driver, args.token + "-wrong")
    until(driver, lambda: errors(driver)["token-error"], "the wrong token's error")
    result["voices"] = voice_names(driver)


def unanswered(driver, args, result):
    enter_token(driver, args.token)
    until(driver, lambda: len(voice_names(driver)) > 1 or errors(driver)["token-error"], "the voices")
    open(args.handshake + ".ready", "w").close()
    until(driver, lambda: os.path.exists(args.handshake), "the test to stop the servers")
    driver.find_element(By.ID, "text").send_keys(args.text)
    driver.find_element(By.ID, "speak").click()
    until(driver, lambda: errors(driver)["speak-error"], "the speech error")


def narrow(driver, args, result):
    # The phone's width exactly, as a phone's browser lays it out.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
    enter_token(driver, args.token)
    until(driver, lambda: len(Select(driver.find_element(By.ID, "voice")).options) > 1, "the voices")
    result.update(driver.execute_script("""
        const root = document.documentElement;
        const wide = [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5)
            .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''));
        return {innerWidth, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wider: wide};"""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("scenarios", help="speak, record, caption, wrong-token, untyped, token-change, unanswered, "
                        "stop or "
                        "narrow; "
                        "several separated by commas")
    parser.add_argument("--text", default="Build passed.")
    parser.add_argument("--voice")
    parser.add_argument("--mic")
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--retry-token")
    parser.add_argument("--handshake")
    parser.add_argument("--screenshot")
    parser.add_argument("--width", type=int, default=800)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args()
    driver = browser(args.mic, args.width, args.height)
    result = {}
    try:
        driver.get(args.url + "/")
        until(driver, lambda: driver.execute_script("return document.body && document.body.dataset.recorder") == "idle",
              "the page")
        for scenario in args.scenarios.split(","):
            scenarios = {
                "speak": speak, "record": record, "caption": caption, "wrong-token": wrong_token, "narrow": narrow,
                "untyped": untyped,
                "token-change": token_change, "unanswered": unanswered, "stop": stop,
            }
            scenarios[scenario](driver, args, result)
        result.update(errors(driver))
        if args.screenshot:
            driver.save_screenshot(args.screenshot)
    finally:
        driver.quit()
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
