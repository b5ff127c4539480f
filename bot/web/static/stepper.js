// The game page's stepper from the keyboard: the arrow keys, Home and End follow the step
// links; the slider goes to its step when moved. Everything works without this script too.
(function () {
  "use strict";
  function go(id) {
    var link = document.getElementById(id);
    if (link && link.getAttribute("aria-disabled") !== "true") {
      window.location.href = link.href;
    }
  }
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
    var target = event.target;
    if (target && target.id === "step") { return; }  // the slider handles its own keys
    if (keys[event.key]) { event.preventDefault(); go(keys[event.key]); }
  });
  var slider = document.getElementById("step");
  if (slider) {
    slider.addEventListener("change", function () { slider.form.submit(); });
  }
  // After a step, keep the table in view (again once the picture has loaded and the page has
  // its full height).
  var here = document.getElementById("table-heading");
  if (here && window.location.search.indexOf("step=") >= 0) {
    here.scrollIntoView();
    window.addEventListener("load", function () { here.scrollIntoView(); });
  }
}());
