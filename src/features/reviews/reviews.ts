import type { App } from '../../app/app.js';
import { ReviewService } from './review-service.js';

const services = new WeakMap<App, ReviewService>();

/** The review service of an app (made on first use: only the review tools and CLI need it). */
export function reviewsFor(app: App): ReviewService {
  let service = services.get(app);
  if (!service) {
    service = new ReviewService(app, app.sessions, app.notifications);
    services.set(app, service);
  }
  return service;
}
