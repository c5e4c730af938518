// seqcore's pages, better with JavaScript: Turbo Drive for links (forms opt in with
// data-turbo="true", since most of them answer with a page rather than a redirect), Turbo
// Streams for live parts, and one Stimulus application every controller registers with.
// Every page works without this file.
import * as Turbo from "@hotwired/turbo";
import { Application } from "@hotwired/stimulus";

Turbo.config.forms.mode = "optin";

export const application = Application.start();
window.Stimulus = application;
export { Turbo };
